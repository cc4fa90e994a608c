#include <iostream>
#include "ir/Readers.h"
#include "ir/RankCursor.h"
#include "ir/Diagnostics.h"
using namespace tracegen;
int main(int argc, char** argv) {
  try {
    Trace t = readTraceFile(argv[1]);
    std::cout << t.numRanks << " ranks " << t.events.size() << " events\n";
    for (Rank r = 0; r < t.numRanks; ++r) { RankCursor c(t, r, argv[1]); Call call; long n=0; double comp=0; while (c.next(call)) { ++n; if (call.computeUs>0) comp+=call.computeUs; } std::cout << r << ": " << n << " comp " << comp << "\n"; }
  } catch (const InputError& e) { std::cerr << e.render() << "\n"; return 2; }
  (void)argc;
}
