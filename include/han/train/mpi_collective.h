#pragma once
// The Collective of a job started by mpirun: MPI_COMM_WORLD. Built only with HAN_MPI
// (CMake finds MPI), as a module of its own (libhan_mpi.so, core/modules.h): han links no
// MPI library, and loads this one only in a run that mpirun started. MPI is initialised
// when the object is made (main thread calls only) and finalised when it goes.
#include "han/train/collective.h"

// The han version the module was built for: a module of another version is refused
// (its Collective may not match this han's).
extern "C" const char* han_mpi_module_version();
// A new MpiCollective, owned by the caller (train/collective.cpp's make_collective()).
extern "C" han::Collective* han_make_mpi_collective();
