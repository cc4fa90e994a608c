// `tracegen inspect`: what is in a trace, as text for people or JSON for scripts, and with
// --matrix and --time-plot as pictures (viz/: the communication matrix, the time per rank).
//
// Figures come from expanding every rank with its own cursor (ir/Summary.h), so they are
// exact per-rank counts of what a benchmark generated from the trace must do.
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <limits>
#include <string_view>
#include <nlohmann/json.hpp>

#include "io/Readers.h"
#include "ir/Summary.h"
#include "tools/tracegen/Commands.h"
#include "viz/CommMatrix.h"
#include "viz/Draw.h"

namespace tracegen {

namespace {

struct InspectArgs {
  std::string input;
  std::string format = "text";
  bool perRank = false;
  bool lower = false;
  std::string matrix;    // --matrix OUT.svg|OUT.png
  std::string timePlot;  // --time-plot OUT.svg|OUT.png
  PipelineOptions pipeline;
};

std::string originDescription(const Trace& t, TraceFormat f) {
  if (f == TraceFormat::ScalaTrace2) {
    if (t.origin == "scalatrace2-ti") return "ScalaTrace 2, time-independent (compute in instructions)";
    if (t.origin == "scalatrace2-tic") return "ScalaTrace 2, time-independent calibrated (time and instructions)";
    return "ScalaTrace 2, time-dependent";
  }
  return fmt::format("tracegen text format ({})", t.origin.empty() ? "unknown origin" : t.origin);
}

// Calls tracegen records but does not model (opaque events), one entry per event: generation
// stops at them unless --skip-unknown.
struct OpaqueEvent {
  std::int64_t id;
  std::string op, sites, ranks;
  int line;
};
std::vector<OpaqueEvent> opaqueEvents(const Trace& trace) {
  std::vector<OpaqueEvent> out;
  for (const Event& e : trace.events) {
    if (!isOpaque(opInfo(e.op).kind)) continue;
    // The chains (scripts match them); their names are in the `named call sites` list.
    std::string sites(trace.siteName(e.site));
    for (SiteId m : e.mergedSites)
      if (m != e.site) sites += fmt::format(", {}", trace.siteName(m));
    out.push_back({e.id, std::string(opName(e.op)), sites, e.ranks.pretty(), e.line});
  }
  return out;
}

// Call sites whose frames the trace names (header `frame` lines), in site-table order: the
// site's chain, its function names innermost first, and the description generated code prints.
struct NamedSite {
  std::string site, description;
  std::vector<std::string> functions;
};
std::vector<NamedSite> namedSites(const Trace& trace) {
  std::vector<NamedSite> out;
  if (trace.frameNames.empty()) return out;
  for (std::size_t s = 0; s < trace.sites.size(); ++s) {
    const auto id = static_cast<SiteId>(s);
    std::string d = trace.siteDescription(id);
    if (!d.empty()) out.push_back({trace.sites[s], std::move(d), trace.siteFunctions(id)});
  }
  return out;
}

// Compute times that drift over the calls of their event (docs/trace-format.md, `calls=`):
// one entry per `time comp` or `compute` line that keeps call ranges.
struct DriftingTime {
  std::int64_t id;
  std::string kind;  // of the trace line: `time comp` or `compute`
  std::string op, after, ranks, unit;
  double mean;
  std::vector<std::pair<std::int64_t, double>> ranges;  // (first call, mean)
  int sourceLine;
};
std::vector<DriftingTime> driftingTimes(const Trace& trace) {
  std::vector<DriftingTime> out;
  for (const Event& e : trace.events) {
    const std::string ranksOf = e.ranks.pretty();
    for (const TimeStat& st : e.stats) {
      if (st.phase != Phase::Compute || st.hist.calls.empty()) continue;
      DriftingTime d{e.id, "time comp", std::string(opName(e.op)), std::string(trace.siteName(st.after)),
                     st.ranks.empty() ? ranksOf : st.ranks.pretty(), std::string(timeUnitName(st.unit)), st.hist.mean(), {}, e.line};
      for (const CallRange& r : st.hist.calls) d.ranges.push_back({r.first, r.avg});
      out.push_back(std::move(d));
    }
    for (const ComputeTime& c : e.compute) {
      if (c.calls.empty()) continue;
      DriftingTime d{e.id, "compute", std::string(opName(e.op)), std::string(trace.siteName(c.after)),
                     c.ranks.empty() ? ranksOf : c.ranks.pretty(), "us", c.us, {}, e.line};
      for (const ComputeTime::ByCall& b : c.calls) d.ranges.push_back({b.first, b.us});
      out.push_back(std::move(d));
    }
  }
  return out;
}

// `calls 0: 35.2, 1-3: 10.1, 4-: 12`
std::string rangesText(const DriftingTime& d) {
  std::string s;
  for (std::size_t i = 0; i < d.ranges.size(); ++i) {
    const std::int64_t first = d.ranges[i].first;
    std::string span = i + 1 == d.ranges.size() ? fmt::format("{}-", first)
                       : d.ranges[i + 1].first - 1 == first ? fmt::format("{}", first)
                                                            : fmt::format("{}-{}", first, d.ranges[i + 1].first - 1);
    s += fmt::format("{}{}: {:.4g}", i == 0 ? "" : ", ", span, d.ranges[i].second);
  }
  return s;
}

nlohmann::ordered_json rankJson(const RankSummary& r) {
  nlohmann::ordered_json o;
  o["rank"] = r.rank;
  o["calls"] = r.calls;
  o["ops"] = r.ops;
  o["bytes_sent"] = r.bytesSent;
  o["bytes_received"] = r.bytesReceived;
  o["compute_us"] = r.computeUs;
  o["compute_kinst"] = r.computeKinst;
  return o;
}

// Writes what `nlohmann::ordered_json::dump(2)` would for the whole document, but one rank at a
// time: the per-rank array is produced by expanding the ranks again (forEachRankSummary), so
// memory stays independent of the number of ranks (a 4,000,000-rank trace would otherwise
// build gigabytes of JSON objects).
void writeJson(std::ostream& out, const std::string& file, const Trace& trace, const TraceSummary& s) {
  nlohmann::ordered_json j;
  j["file"] = file;
  j["origin"] = trace.origin;
  j["compute_clock"] = trace.computeClock == ComputeClock::Cpu ? "cpu" : "wall";
  if (trace.recordings.count > 1)
    j["recordings"] = {{"count", trace.recordings.count},
                       {"spread_median", trace.recordings.spreadMedian},
                       {"spread_max", trace.recordings.spreadMax},
                       {"spread_max_event", trace.recordings.spreadMaxEvent}};
  j["ranks"] = s.ranks;
  j["events"] = s.events;
  j["loops"] = s.loops;
  j["loop_heads"] = s.loopHeads;
  j["calls"] = s.calls;
  j["ops"] = s.callOps;
  j["event_ops"] = s.eventOps;
  j["compute_us"] = s.computeUs;
  j["compute_kinst"] = s.computeKinst;
  nlohmann::ordered_json opaque = nlohmann::ordered_json::array();
  for (const auto& o : opaqueEvents(trace)) {
    nlohmann::ordered_json e;
    e["event"] = o.id;
    e["op"] = o.op;
    e["site"] = o.sites;
    e["ranks"] = o.ranks;
    e["line"] = o.line;
    opaque.push_back(e);
  }
  j["opaque"] = opaque;
  nlohmann::ordered_json drift = nlohmann::ordered_json::array();
  for (const auto& d : driftingTimes(trace)) {
    nlohmann::ordered_json e;
    e["event"] = d.id;
    e["op"] = d.op;
    e["kind"] = d.kind;
    e["after"] = d.after;
    e["ranks"] = d.ranks;
    e["unit"] = d.unit;
    e["mean"] = d.mean;
    nlohmann::ordered_json ranges = nlohmann::ordered_json::array();
    for (const auto& [first, mean] : d.ranges) ranges.push_back({{"first_call", first}, {"mean", mean}});
    e["calls"] = ranges;
    e["line"] = d.sourceLine;
    drift.push_back(e);
  }
  j["drift"] = drift;
  if (const auto named = namedSites(trace); !named.empty()) {
    nlohmann::ordered_json sites = nlohmann::ordered_json::array();
    for (const auto& n : named) sites.push_back({{"site", n.site}, {"functions", n.functions}, {"description", n.description}});
    j["program"] = trace.program;
    j["named_sites"] = sites;
  }
  std::string head = j.dump(2);
  head.resize(head.size() - 2);  // drop the closing "\n}": per_rank follows
  out << head << ",\n  \"per_rank\": [";
  bool first = true;
  forEachRankSummary(trace, file, [&](const RankSummary& r) {
    out << (first ? "\n" : ",\n");
    first = false;
    const std::string o = rankJson(r).dump(2);
    std::size_t pos = 0;
    while (pos < o.size()) {  // indent the object by two levels
      std::size_t nl = o.find('\n', pos);
      if (nl == std::string::npos) nl = o.size();
      out << "    " << std::string_view(o).substr(pos, nl - pos);
      if (nl < o.size()) out << "\n";
      pos = nl + 1;
    }
  });
  out << (first ? "]\n}\n" : "\n  ]\n}\n");
}

std::string humanBytes(std::int64_t b) {
  // Totals saturate rather than overflow (ir/Summary.h): say so instead of printing 2^63-1.
  if (b == std::numeric_limits<std::int64_t>::max()) return ">= 8 EiB";
  if (b >= 10LL * 1024 * 1024) return fmt::format("{:.1f} MiB", static_cast<double>(b) / (1024.0 * 1024.0));
  if (b >= 10LL * 1024) return fmt::format("{:.1f} KiB", static_cast<double>(b) / 1024.0);
  return fmt::format("{} B", b);
}

void printText(std::ostream& out, const std::string& file, const std::string& origin, const Trace& trace,
               const TraceSummary& s, bool perRank, double seconds) {
  out << fmt::format("{}: {}\n", file, origin);
  out << fmt::format("ranks       {}\n", s.ranks);
  if (trace.computeClock == ComputeClock::Cpu)
    out << "clock       cpu (compute times are each rank's thread CPU time, TRACEGEN_CLOCK=cpu)\n";
  if (const Trace::Recordings& r = trace.recordings; r.count > 1) {
    out << fmt::format("times       the medians of {} recordings (tracegen merge-timing)", r.count);
    if (r.spreadMaxEvent >= 0)
      out << fmt::format("; their spread: median {:.1f}%, largest {:.1f}% (event {})", 100 * r.spreadMedian,
                         100 * r.spreadMax, r.spreadMaxEvent);
    out << "\n";
  }
  out << fmt::format("events      {}\n", s.events);
  out << fmt::format("loops       {} levels on {} loop heads\n", s.loops, s.loopHeads);
  out << fmt::format("calls       {} over all ranks\n", s.calls);
  if (s.computeUs > 0)
    out << fmt::format("compute     {:.6f} s over all ranks ({:.6f} s per rank on average)\n", s.computeUs / 1e6,
                       s.computeUs / 1e6 / static_cast<double>(s.ranks));
  if (s.computeKinst > 0)
    out << fmt::format("compute     {:.4g} instructions over all ranks ({:.4g} per rank on average)\n",
                       s.computeKinst * 1e3, s.computeKinst * 1e3 / static_cast<double>(s.ranks));
  out << "\noperation                events       calls\n";
  for (const auto& [name, calls] : s.callOps) {
    auto it = s.eventOps.find(name);
    out << fmt::format("{:<22} {:>8} {:>11}\n", name, it == s.eventOps.end() ? 0 : it->second, calls);
  }
  if (const auto opaque = opaqueEvents(trace); !opaque.empty()) {
    out << fmt::format("\nopaque events: {} (calls tracegen records but does not model; generation stops at them "
                       "unless --skip-unknown)\n", opaque.size());
    for (const auto& o : opaque)
      out << fmt::format("  E{} {} at {}, ranks {}{}\n", o.id, o.op, o.sites, o.ranks,
                         o.line > 0 ? fmt::format(" (line {})", o.line) : "");
  }
  if (const auto drift = driftingTimes(trace); !drift.empty()) {
    out << fmt::format("\ncompute times that drift over their calls: {} (time per range of calls, counted per rank "
                       "from 0)\n", drift.size());
    for (const auto& d : drift)
      out << fmt::format("  E{} {} {} after {}, ranks {}: mean {:.4g} {}; calls {}{}\n", d.id, d.op, d.kind, d.after, d.ranks,
                         d.mean, d.unit, rangesText(d), d.sourceLine > 0 ? fmt::format(" (line {})", d.sourceLine) : "");
  }
  if (const auto named = namedSites(trace); !named.empty()) {
    out << fmt::format("\nnamed call sites: {} of {}{}\n", named.size(), trace.sites.size(),
                       trace.program.empty() ? "" : fmt::format(" (program {})", trace.program));
    for (const auto& n : named) out << fmt::format("  {}: {}\n", n.site, n.description);
  }
  if (perRank) {
    // One row per rank: totals, then one column per operation (names without "MPI_").
    const bool kinst = s.computeUs <= 0 && s.computeKinst > 0;
    out << fmt::format("\n{:>5} {:>9} {:>12} {:>12} {:>12}", "rank", "calls", "bytes sent", "bytes recv",
                       kinst ? "compute Ginst" : "compute s");
    for (const auto& [name, calls] : s.callOps) out << fmt::format(" {:>10}", name.substr(4));
    out << "\n";
    // Rows are streamed from a second expansion, so memory does not grow with the ranks.
    forEachRankSummary(trace, file, [&](const RankSummary& r) {
      out << fmt::format("{:>5} {:>9} {:>12} {:>12} {:>12.6f}", r.rank, r.calls, humanBytes(r.bytesSent),
                         humanBytes(r.bytesReceived), kinst ? r.computeKinst / 1e6 : r.computeUs / 1e6);
      for (const auto& [name, calls] : s.callOps) {
        auto it = r.ops.find(name);
        out << fmt::format(" {:>10}", it == r.ops.end() ? 0 : it->second);
      }
      out << "\n";
    });
  }
  out << fmt::format("\n(read and expanded in {:.3f} s)\n", seconds);
}

}  // namespace

void registerInspectCommand(CLI::App& app, CommandAction& run) {
  static InspectArgs args;
  CLI::App* cmd = app.add_subcommand("inspect", "print ranks, events, loops, operations, compute time and per-rank figures");
  cmd->add_option("input", args.input, "trace file (ScalaTrace 2 or tracegen format)")->required();
  cmd->add_option("--format", args.format, "output format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  cmd->add_flag("--per-rank", args.perRank, "per-rank expanded operation counts, bytes and compute time");
  cmd->add_flag("--lower", args.lower, "inspect the trace after the lowering pipeline");
  cmd->add_option("--matrix", args.matrix,
                  "draw the communication matrix (point-to-point bytes sender x receiver, collective bytes per rank) "
                  "to OUT.svg or OUT.png");
  cmd->add_option("--time-plot", args.timePlot,
                  "draw compute and MPI time per rank, stacked, the slowest rank marked, to OUT.svg or OUT.png");
  addPipelineOptions(*cmd, args.pipeline);
  cmd->callback([&run] {
    run = [] {
      auto start = std::chrono::steady_clock::now();
      // A bad picture name is refused before the trace is read.
      if (!args.matrix.empty()) pictureFormatOf(args.matrix, "--matrix");
      if (!args.timePlot.empty()) pictureFormatOf(args.timePlot, "--time-plot");
      SourceFile src = loadSourceFile(args.input);
      TraceFormat format = detectFormat(src);
      Trace trace;
      if (args.lower || !args.pipeline.passes.empty()) {
        PassContext ctx;
        trace = readAndLower(args.input, args.pipeline, ctx);
      } else {
        trace = readTrace(src);
        printReaderWarnings(trace, args.input);
      }
      TraceSummary s = summarizeTrace(trace, args.input, /*keepPerRank=*/false);
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::string origin = originDescription(trace, format);
      if (args.format == "json") {
        writeJson(std::cout, args.input, trace, s);
      } else {
        printText(std::cout, args.input, origin, trace, s, args.perRank, seconds);
      }
      const std::string title = std::filesystem::path(args.input).filename().string();
      if (!args.matrix.empty()) {
        drawCommMatrix(computeCommMatrix(trace, args.input), title, args.matrix);
        if (args.format != "json") std::cout << fmt::format("communication matrix written to {}\n", args.matrix);
      }
      if (!args.timePlot.empty()) {
        drawRankTimes(computeRankTimes(trace, args.input), title, args.timePlot);
        if (args.format != "json") std::cout << fmt::format("time plot written to {}\n", args.timePlot);
      }
      return 0;
    };
  });
}

}  // namespace tracegen
