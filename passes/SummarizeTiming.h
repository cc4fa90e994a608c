#pragma once
#include <memory>
#include "passes/Pass.h"
namespace tracegen {
std::unique_ptr<Pass> createSummarizeTimingPass();
}
