// MPI_Allreduce of float buffers, as han train's gradient exchange calls it: for each size
// (4 bytes to 64 MB), the median time of many calls, timed on every rank and taken as the
// slowest rank's (after a barrier, so no rank waits for another's compute). Rank 0 prints
// one JSON line per size: {"ranks", "bytes", "seconds"}; bench/bench_scaling.sh fits the
// alpha-beta model to them.
// Run: mpirun -np N build/han_bench_allreduce [--max-mb 64]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The slowest rank's median over `calls` calls on n floats.
double time_allreduce(std::vector<float>& buffer, int n, int calls) {
  std::vector<double> times;
  for (int c = 0; c < calls; ++c) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    MPI_Allreduce(MPI_IN_PLACE, buffer.data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    times.push_back(MPI_Wtime() - start);
  }
  double mine = median(times), slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  double max_mb = 64;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--max-mb") == 0) max_mb = std::atof(argv[i + 1]);
  const long max_floats = static_cast<long>(max_mb * 1e6 / sizeof(float));
  std::vector<float> buffer(static_cast<std::size_t>(max_floats), 1e-3f);
  for (long n = 1; n <= max_floats; n *= 4) {
    // Enough calls for a stable median, fewer for the large sizes.
    const int calls = n < 16384 ? 200 : n < 1048576 ? 40 : 10;
    time_allreduce(buffer, static_cast<int>(n), 3);  // warm-up: connections, buffers
    const double seconds = time_allreduce(buffer, static_cast<int>(n), calls);
    if (rank == 0) std::printf("{\"ranks\": %d, \"bytes\": %ld, \"seconds\": %.9f}\n", ranks, n * 4, seconds);
  }
  MPI_Finalize();
  return 0;
}
