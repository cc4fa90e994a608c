// The factories of the backends that gen/Backends.cpp registers under their names.
//
// Backend.h declares createBackend(name) and backendNames() for the command line; each
// backend exposes its own factory here so that the registry (and tests that want one backend
// directly) need not know its class.
#pragma once

#include <memory>

#include "gen/Backend.h"

namespace tracegen::gen {

std::unique_ptr<Backend> createCBackend();      // gen/c/ (Program.cpp): C+MPI (".c")
std::unique_ptr<Backend> createNcptlBackend();  // gen/conceptual/ (Program.cpp): coNCePTuaL (".ncptl")

}  // namespace tracegen::gen
