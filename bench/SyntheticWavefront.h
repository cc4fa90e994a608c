#pragma once
#include <cstdint>
#include "ir/Trace.h"
namespace tracegen {
// A clustered trace of an LU-like pipelined wavefront on a px x py grid of ranks: every
// timestep a lower sweep (receive from the north and the west with MPI_ANY_SOURCE, one tag
// per direction as NPB LU's exchange routines use, then send south and east), an upper sweep
// (the reverse), and an Allreduce.
Trace makeWavefrontTrace(Rank px, Rank py, std::int64_t timesteps, double computeUs = 50.0);
}
