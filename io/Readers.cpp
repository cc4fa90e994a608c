#include "io/Readers.h"

#include <sstream>

#include "ir/Diagnostics.h"

namespace tracegen {

TraceFormat detectFormat(const SourceFile& file) {
  for (const auto& line : file.lines) {
    auto tokens = tokenize(line.text);
    if (tokens.empty()) continue;  // blank or comment
    if (tokens[0].text == "tracegen-trace") return TraceFormat::Tracegen;
    if (tokens[0].text == "RANKS:") return TraceFormat::ScalaTrace2;
    throw InputError(file.name, line.number, "not a trace: expected 'tracegen-trace' or 'RANKS:'", std::string(line.text),
                     "tracegen reads ScalaTrace 2 text traces and its own format (docs/trace-format.md)");
  }
  throw InputError(file.name, file.lines.empty() ? 1 : file.lines.back().number, "empty trace file");
}

Trace readTrace(const SourceFile& file) {
  return detectFormat(file) == TraceFormat::Tracegen ? readTracegenText(file) : readScalaTrace(file);
}

Trace readTraceFile(const std::string& path) { return readTrace(loadSourceFile(path)); }

std::string tracegenText(const Trace& trace) {
  std::ostringstream ss;
  writeTracegenText(trace, ss);
  return ss.str();
}

}  // namespace tracegen
