#pragma once
/// \file
/// The ranks of an MPI job for `mpirun -n K mechint sweep ...` (app/sweep.hpp, SweepRanks; Open MPI
/// from Debian). MPI is started only when mechint was launched by an MPI launcher, seen from the
/// variables the launcher sets (OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_SIZE): a plain `mechint sweep`
/// never starts it. Built without MPI (MECHINT_WITH_MPI off), a sweep under a launcher is refused.

#include <memory>

#include "app/sweep.hpp"

namespace mechint::cli {

/// The job's ranks when launched by an MPI launcher with more than one process, else null. The
/// returned object ends MPI when destroyed. Throws InvalidInput when launched so and built without MPI.
std::unique_ptr<app::SweepRanks> mpi_ranks_if_launched();

/// The threads each rank runs by default: the machine's hardware threads shared among the job's
/// ranks on this machine (no oversubscription), at least one.
unsigned default_threads(const app::SweepRanks& ranks);

}  // namespace mechint::cli
