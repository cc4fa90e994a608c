// Reading and writing traces. Two input formats are recognised by their first line:
// ScalaTrace 2 global traces (`RANKS: ...`) and tracegen's own text format
// (`tracegen-trace 1`, docs/trace-format.md). Every reader reports malformed input as an
// InputError naming the file and line.
#pragma once

#include <iosfwd>
#include <string>

#include "io/TextLines.h"
#include "ir/Trace.h"

namespace tracegen {

enum class TraceFormat { ScalaTrace2, Tracegen };

Trace readScalaTrace(const SourceFile& file);
Trace readTracegenText(const SourceFile& file);
// Writes tracegen's text format; deterministic (same trace, same bytes).
void writeTracegenText(const Trace& trace, std::ostream& out);
std::string tracegenText(const Trace& trace);

TraceFormat detectFormat(const SourceFile& file);
Trace readTrace(const SourceFile& file);
Trace readTraceFile(const std::string& path);

}  // namespace tracegen
