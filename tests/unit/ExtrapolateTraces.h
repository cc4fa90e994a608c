// Hand-written traces for the extrapolation tests (ExtrapolateTest, ScaleFreeTest,
// ScaleFreeNcptlTest): the same application at several rank counts.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "extrap/Extrapolate.h"
#include "io/Readers.h"

namespace tracegen::extrap::traces {

// A ring: every rank sends `count` ints to rank+1 and receives them from rank-1 (MPI_Sendrecv,
// P-1 steps, tag = step); `extra` is text inserted before the MPI_Finalize event.
inline std::string ringText(Rank p, std::int64_t count, const std::string& extra = "") {
  std::string tags;
  for (Rank s = 0; s + 1 < p; ++s) tags += fmt::format(" {}", s);
  return fmt::format(
      "tracegen-trace 1\nranks {0}\norigin hand-written\ndatatype MPI_INT 4\n"
      "event 0 MPI_Init @ <1 0 {{{0} 1}}>\n  site ring.c:10\n"
      "event 1 MPI_Sendrecv @ <1 0 {{{0} 1}}>\n  site ring.c:20\n  loop 0 iter {1}\n  loop 0 mem 1\n"
      "  comm 2\n  count {2}\n  datatype MPI_INT\n  recvcount {2}\n  recvtype MPI_INT\n  dest rel 1\n  source rel {1}\n"
      "  tag{3}\n  recvtag{3}\n"
      "{4}"
      "event 2 MPI_Finalize @ <1 0 {{{0} 1}}>\n  site ring.c:30\n",
      p, p - 1, count, tags, extra);
}

// An input of `extrapolate` read from trace text.
inline ExtrapolateInput input(const std::string& name, const std::string& text) {
  return {name, readTracegenText(sourceFromString(name, text))};
}

}  // namespace tracegen::extrap::traces
