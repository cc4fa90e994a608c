// Backends: one output language each, over the shared traversal (gen/Traversal.h).
//
// A backend renders a Program (gen/Program.h) with the templates in templates/<backend>/:
// the program skeleton and one snippet per kind of statement are template files rendered by
// the mustache engine; the backend's C++ decides what goes into them (expressions, task
// sets, indentation) and never spells program text itself.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gen/Program.h"

namespace tracegen::gen {

struct GenOptions {
  std::string commandLine;  // how tracegen was invoked, for the generated header
  std::string outputName;   // file name of the generated program ("-" for stdout)
  // C: the runtime (gen/CRuntime.h) as `#include "tracegen_runtime.h"` rather than its text
  // at the top of the file (--runtime=separate; the command writes the runtime's files).
  bool separateRuntime = false;
  // coNCePTuaL: the steps the backend's own check may simulate the program for before it
  // stops short (ncptl/Checker.h, CheckOptions::simulationBudget); the fuzz targets lower it.
  std::int64_t checkBudget = 50'000'000;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;       // "c", "ncptl"
  virtual std::string_view extension() const = 0;  // ".c", ".ncptl"
  // Throws std::invalid_argument (exit status 2) for programs it cannot express.
  virtual std::string render(const Program& program, const GenOptions& options) const = 0;
  // Whether receive statements must name the size of the message they match rather than
  // the size posted (buildProgram's `received`).
  virtual bool needsReceivedBytes() const { return false; }
};

std::unique_ptr<Backend> createBackend(std::string_view name);  // nullptr if unknown
std::vector<std::string> backendNames();

// The text of templates/<path>, compiled into tracegen. Throws std::out_of_range if missing.
std::string_view templateText(std::string_view path);

}  // namespace tracegen::gen
