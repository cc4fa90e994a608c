// PassManager: runs an ordered list of named passes over a trace, verifying the IR after each
// and optionally printing it (`--print-after`).
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "passes/Pass.h"

namespace tracegen {

// Names of the passes in the default pipeline, in order.
std::vector<std::string> defaultPipeline();
// All registered pass names with their descriptions.
std::vector<std::pair<std::string, std::string>> registeredPasses();
std::unique_ptr<Pass> createPass(const std::string& name);  // nullptr if unknown
// The registered passes that establish `p`, for diagnostics ("resolve-comms").
std::string passesEstablishing(IrProperty p);

struct PassTiming {
  std::string pass;
  double seconds = 0;
  std::size_t eventsBefore = 0, eventsAfter = 0;
};

class PassManager {
 public:
  // Throws std::invalid_argument naming an unknown pass, or a pass whose required properties
  // no earlier pass of the list establishes.
  explicit PassManager(const std::vector<std::string>& names);
  void setPrintAfter(std::vector<std::string> names, std::ostream* out);  // "all" prints after each
  void setVerify(bool on) { verify_ = on; }
  void run(Trace& trace, PassContext& ctx);
  const std::vector<PassTiming>& timings() const { return timings_; }

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
  std::vector<std::string> printAfter_;
  std::ostream* printOut_ = nullptr;
  bool verify_ = true;
  std::vector<PassTiming> timings_;
};

}  // namespace tracegen
