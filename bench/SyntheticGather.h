#pragma once

#include <cstdint>

#include "ir/Trace.h"

namespace tracegen {

// A clustered trace of a time-step code that ends with a gather to rank 0 by wildcard
// receives: every timestep each rank exchanges with both neighbours of a ring (MPI_Sendrecv
// each way) and joins an MPI_Allreduce; then every other rank sends rank 0 its result and rank
// 0 takes them from MPI_ANY_SOURCE. The wildcards need a simulation (every sender can reach
// every receive), which resolve-wildcards runs with the time-step loop folded.
Trace makeGatherTrace(Rank ranks, std::int64_t timesteps);

}  // namespace tracegen
