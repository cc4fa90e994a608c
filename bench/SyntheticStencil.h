#pragma once
#include <cstdint>
#include "ir/Trace.h"
namespace tracegen {
// A clustered trace of a px x py five-point stencil with `timesteps` iterations of
// halo exchange (Irecv/Isend per neighbour, Waitall), compute, and an Allreduce.
Trace makeStencilTrace(Rank px, Rank py, std::int64_t timesteps, double computeUs = 100.0);
}
