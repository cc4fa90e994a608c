// The coNCePTuaL backend (language version 1.5, c_mpi): renders a Program (gen/Program.h) as
// a readable coNCePTuaL benchmark with the templates in templates/ncptl/. See
// docs/ncptl-backend.md for the lowering of every MPI call and what is approximated.
#pragma once

#include <memory>

#include "gen/Backend.h"

namespace tracegen::gen {

std::unique_ptr<Backend> createNcptlBackend();  // name "ncptl", extension ".ncptl"

}  // namespace tracegen::gen
