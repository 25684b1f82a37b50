#pragma once
// The Collective of a job started by mpirun: MPI_COMM_WORLD. Built only with HAN_MPI
// (CMake finds MPI); MPI is initialised here (main thread calls only) and finalised when
// the object goes. Only train/collective.cpp includes this header.
#include <memory>

#include "han/train/collective.h"

namespace han {

std::unique_ptr<Collective> make_mpi_collective();

}  // namespace han
