#include "record/LoopCompressor.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "record/Hash.h"

namespace tracegen::record {

namespace {
constexpr std::uint64_t kEventSeed = 0x6576656e74ull;
constexpr std::uint64_t kLoopSeed = 0x6c6f6f70ull;
}  // namespace

void CallRecord::clear() {
  op = Op::Init;
  site = 0;
  scalars.clear();
  vectors.clear();
  vectorValues.clear();
  prevSite = -1;
  computeUs = -1;
  mpiUs = -1;
}

void CallRecord::setVector(Param p, const std::int64_t* values, std::size_t n) {
  vectors.push_back({p, vectorValues.size(), n});
  vectorValues.insert(vectorValues.end(), values, values + n);
}

void CallRecord::setVector(Param p, const int* values, std::size_t n) {
  vectors.push_back({p, vectorValues.size(), n});
  vectorValues.insert(vectorValues.end(), values, values + n);
}

void LoopCompressor::addStat(std::vector<Stat>& stats, Phase phase, std::int64_t after, double us) {
  for (Stat& s : stats)
    if (s.phase == phase && s.after == after) {
      s.acc.add(us);
      return;
    }
  stats.emplace_back(phase, after).acc.add(us);  // in place: a Stat is some 300 bytes
}

void LoopCompressor::pushEvent(const CallRecord& call) { seq_.push_back(eventNode(call)); }

LoopCompressor::Node LoopCompressor::eventNode(const CallRecord& call) {
  Node n;
  if (!pool_.empty()) {
    // A kept node of the same call site if one is near the top of the pool: its buffers have
    // the sizes this site's calls need (another site's node may have fewer slots, or shorter
    // value lists, to grow again).
    std::size_t pick = pool_.size() - 1;
    for (std::size_t i = pool_.size(), seen = 0; i-- > 0 && seen < 8; ++seen)
      if (pool_[i].site == call.site && pool_[i].op == call.op) {
        pick = i;
        break;
      }
    n = std::move(pool_[pick]);
    if (pick + 1 != pool_.size()) pool_[pick] = std::move(pool_.back());
    pool_.pop_back();
  }
  makeEvent(call, n);
  return n;
}

void LoopCompressor::makeEvent(const CallRecord& call, Node& n) {
  n.op = call.op;
  n.site = call.site;
  const std::size_t count = call.scalars.size() + call.vectors.size();
  if (n.slots.size() > count) n.slots.resize(count);
  std::size_t k = 0;
  auto slot = [&](Param p, std::int64_t length) -> ElasticSeq& {
    if (k == n.slots.size()) n.slots.push_back({p, {}, length});
    Slot& s = n.slots[k++];
    s.param = p;
    s.vectorLength = length;
    s.values.clear();  // keeps its capacity
    return s.values;
  };
  for (const auto& [p, v] : call.scalars) slot(p, 0).push(v);
  for (const auto& ref : call.vectors) {
    ElasticSeq& values = slot(ref.param, static_cast<std::int64_t>(ref.length));
    for (std::size_t i = 0; i < ref.length; ++i) values.push(call.vectorValues[ref.offset + i]);
  }
  auto byParam = [](const Slot& a, const Slot& b) { return a.param < b.param; };
  if (!std::is_sorted(n.slots.begin(), n.slots.end(), byParam)) std::sort(n.slots.begin(), n.slots.end(), byParam);
  auto hash = [&] {
    std::uint64_t h = combine(kEventSeed, static_cast<std::uint64_t>(n.op));
    h = combine(h, static_cast<std::uint64_t>(n.site));
    for (const Slot& s : n.slots) h = combine(h, static_cast<std::uint64_t>(s.param));
    return h;
  };
  ShapeMemo& memo = shapes_[(n.site * 31u + static_cast<std::uint32_t>(n.op)) & 255u];
  if (n.slots.size() <= sizeof memo.params) {
    std::uint8_t params[sizeof memo.params] = {};
    for (std::size_t i = 0; i < n.slots.size(); ++i) params[i] = static_cast<std::uint8_t>(n.slots[i].param);
    if (memo.op != n.op || memo.site != n.site || memo.n != n.slots.size() ||
        std::memcmp(memo.params, params, sizeof params) != 0) {
      memo.op = n.op;
      memo.site = n.site;
      memo.n = static_cast<std::uint8_t>(n.slots.size());
      std::memcpy(memo.params, params, sizeof params);
      memo.shape = hash();
      memo.rawValid = false;
    }
    n.shape = memo.shape;
  } else {
    n.shape = hash();
  }
  n.execs = 1;
  n.fresh.clear();
  if (call.computeUs >= 0) n.fresh.push_back({Phase::Compute, call.prevSite, call.computeUs});
  if (call.mpiUs >= 0) n.fresh.push_back({Phase::Mpi, call.prevSite, call.mpiUs});
}

void LoopCompressor::settle(Node& n) {
  for (const Sample& x : n.fresh) addStat(n.stats, x.phase, x.after, x.us);
  n.fresh.clear();
}

void LoopCompressor::addFresh(Node& into, const Sample* samples, std::size_t k) {
  if (into.stats.empty() && into.fresh.size() + k <= kFresh) {
    for (std::size_t i = 0; i < k; ++i) into.fresh.push_back(samples[i]);  // one or two: no memmove call
    return;
  }
  settle(into);
  for (std::size_t i = 0; i < k; ++i) addStat(into.stats, samples[i].phase, samples[i].after, samples[i].us);
}

void LoopCompressor::recycle(Node&& n) {
  if (n.loop) {
    for (Node& b : n.body) recycle(std::move(b));
    if (loopPool_.size() >= 64) return;
    n.body.clear();
    n.iters.clear();
    n.open = 0;
    n.stats.clear();
    loopPool_.push_back(std::move(n));
    return;
  }
  if (pool_.size() >= 64) return;
  n.stats.clear();
  n.fresh.clear();
  n.iters = ElasticSeq();
  n.open = 0;
  n.body.clear();
  pool_.push_back(std::move(n));
}

LoopCompressor::Node LoopCompressor::takeLoop() {
  Node loop;
  if (!loopPool_.empty()) {
    loop = std::move(loopPool_.back());
    loopPool_.pop_back();
  }
  loop.loop = true;
  return loop;
}

std::uint64_t LoopCompressor::loopShape(const std::vector<Node>& body) {
  if (body.size() == 1) return body[0].shape;  // a loop around one event is shaped like the event
  std::uint64_t h = combine(kLoopSeed, static_cast<std::uint64_t>(body.size()));
  for (const Node& b : body) h = combine(h, b.shape);
  return h;
}

bool LoopCompressor::sameShape(const Node& a, const Node& b) {
  if (a.shape != b.shape) return false;
  if (a.loop != b.loop) {  // an event matches a loop around that one event
    const Node& loop = a.loop ? a : b;
    const Node& event = a.loop ? b : a;
    return loop.body.size() == 1 && sameShape(loop.body[0], event);
  }
  if (a.loop) return a.body.size() == b.body.size() && rangesMatch(a.body, 0, b.body, 0, a.body.size());
  if (a.op != b.op || a.site != b.site || a.slots.size() != b.slots.size()) return false;
  for (std::size_t i = 0; i < a.slots.size(); ++i)
    if (a.slots[i].param != b.slots[i].param) return false;
  return true;
}

bool LoopCompressor::rangesMatch(const std::vector<Node>& a, std::size_t ai, const std::vector<Node>& b, std::size_t bi,
                                 std::size_t n) {
  for (std::size_t k = 0; k < n; ++k)
    if (!sameShape(a[ai + k], b[bi + k])) return false;
  return true;
}

void LoopCompressor::commit(Node& n) {
  if (n.open > 0) {
    n.iters.push(n.open);
    n.open = 0;
  }
}

// An event executed `execs` times becomes a loop of one iteration per execution.
void LoopCompressor::wrapInLoop(Node& event) {
  Node loop;
  loop.loop = true;
  loop.shape = event.shape;
  loop.iters = ElasticSeq::repeated(1, event.execs);
  loop.body.push_back(std::move(event));
  event = std::move(loop);
}

void LoopCompressor::mergeInto(Node& into, Node& from) {
  if (into.loop != from.loop) wrapInLoop(into.loop ? from : into);
  if (into.loop) {
    commit(into);
    commit(from);
    into.iters.append(from.iters);
    for (std::size_t i = 0; i < into.body.size(); ++i) mergeInto(into.body[i], from.body[i]);
    return;
  }
  into.execs += from.execs;
  for (std::size_t i = 0; i < into.slots.size(); ++i) {
    into.slots[i].values.append(from.slots[i].values);
    if (into.slots[i].vectorLength != from.slots[i].vectorLength) into.slots[i].vectorLength = -1;
  }
  if (from.stats.empty()) {  // from's samples are all raw: after into's, in order
    addFresh(into, from.fresh.data(), from.fresh.size());
    return;
  }
  settle(into);
  for (const Stat& s : from.stats) {
    auto it = std::find_if(into.stats.begin(), into.stats.end(),
                           [&](const Stat& t) { return t.phase == s.phase && t.after == s.after; });
    if (it == into.stats.end())
      into.stats.push_back(s);
    else
      it->acc.merge(s.acc);
  }
  for (const Sample& x : from.fresh) addStat(into.stats, x.phase, x.after, x.us);
}

void LoopCompressor::probe(const CallRecord& call, Probe& p) {
  const std::size_t count = call.scalars.size() + call.vectors.size();
  p.direct = false;
  if (count > kProbeSlots) return;
  p.n = static_cast<std::uint8_t>(count);
  auto paramAt = [&](std::size_t i) {
    return static_cast<std::uint8_t>(i < call.scalars.size() ? call.scalars[i].first : call.vectors[i - call.scalars.size()].param);
  };
  ShapeMemo& memo = shapes_[(call.site * 31u + static_cast<std::uint32_t>(call.op)) & 255u];
  std::uint64_t raw[2] = {0, 0};
  for (std::size_t i = 0; i < count; ++i) raw[i >> 3] |= static_cast<std::uint64_t>(paramAt(i)) << (8 * (i & 7));
  if (memo.rawValid && memo.op == call.op && memo.site == call.site && memo.n == count && memo.raw[0] == raw[0] &&
      memo.raw[1] == raw[1]) {  // the site's parameters in the order its previous call gave them
    std::memcpy(p.params, memo.params, sizeof p.params);
    std::memcpy(p.from, memo.from, sizeof p.from);
    p.shape = memo.shape;
    p.direct = true;
    return;
  }
  // Insertion sort by parameter (a handful of slots, nearly always in order already).
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t param = paramAt(i);
    std::size_t j = i;
    for (; j > 0 && p.params[j - 1] > param; --j) {
      p.params[j] = p.params[j - 1];
      p.from[j] = p.from[j - 1];
    }
    p.params[j] = param;
    p.from[j] = static_cast<std::uint8_t>(i);
  }
  for (std::size_t i = 1; i < count; ++i)
    if (p.params[i] == p.params[i - 1]) return;  // a parameter twice: makeEvent's order decides
  for (std::size_t i = count; i < kProbeSlots; ++i) p.params[i] = 0;
  // The same memo makeEvent uses (and fills the same way).
  // Byte by byte: p.params was just written so, and a wider load of it would wait for the
  // stores (no store forwarding); both arrays are zero beyond `count`.
  bool same = memo.op == call.op && memo.site == call.site && memo.n == count;
  for (std::size_t i = 0; i < count && same; ++i) same = memo.params[i] == p.params[i];
  if (!same) {
    std::uint64_t h = combine(kEventSeed, static_cast<std::uint64_t>(call.op));
    h = combine(h, static_cast<std::uint64_t>(call.site));
    for (std::size_t i = 0; i < count; ++i) h = combine(h, static_cast<std::uint64_t>(p.params[i]));
    memo.op = call.op;
    memo.site = call.site;
    memo.n = p.n;
    std::memcpy(memo.params, p.params, sizeof p.params);
    memo.shape = h;
  }
  memo.rawValid = true;
  memo.raw[0] = raw[0];
  memo.raw[1] = raw[1];
  std::memcpy(memo.from, p.from, sizeof p.from);
  p.shape = memo.shape;
  p.direct = true;
}

// sameShape(a, makeEvent(call)).
bool LoopCompressor::matchesCall(const Node& a, const CallRecord& call, const Probe& p) {
  if (a.shape != p.shape) return false;
  if (a.loop) return a.body.size() == 1 && matchesCall(a.body[0], call, p);
  if (a.op != call.op || a.site != call.site || a.slots.size() != p.n) return false;
  for (std::size_t i = 0; i < p.n; ++i)
    if (static_cast<std::uint8_t>(a.slots[i].param) != p.params[i]) return false;
  return true;
}

// mergeInto(into, makeEvent(call)): into has the call's shape.
void LoopCompressor::mergeCall(Node& into, const CallRecord& call, const Probe& p) {
  if (into.loop) {
    // mergeInto makes the event a loop of one iteration first, whose trip counts are one 1.
    commit(into);
    into.iters.push(1);
    mergeCall(into.body[0], call, p);
    return;
  }
  ++into.execs;
  const std::size_t scalars = call.scalars.size();
  for (std::size_t i = 0; i < p.n; ++i) {
    Slot& s = into.slots[i];
    const std::size_t k = p.from[i];
    if (k < scalars) {
      s.values.push(call.scalars[k].second);
      if (s.vectorLength != 0) s.vectorLength = -1;
      continue;
    }
    const CallRecord::VectorRef& ref = call.vectors[k - scalars];
    for (std::size_t j = 0; j < ref.length; ++j) s.values.push(call.vectorValues[ref.offset + j]);
    if (s.vectorLength != static_cast<std::int64_t>(ref.length)) s.vectorLength = -1;
  }
  Sample samples[2];
  std::size_t k = 0;
  if (call.computeUs >= 0) samples[k++] = {Phase::Compute, call.prevSite, call.computeUs};
  if (call.mpiUs >= 0) samples[k++] = {Phase::Mpi, call.prevSite, call.mpiUs};
  addFresh(into, samples, k);
}

// compressTail() with the call as the tail's last node, before a node is made for it: the same
// tests in the same order; the call is folded where its node would be. False if no rule applies.
bool LoopCompressor::foldCall(const CallRecord& call, const Probe& p) {
  const std::size_t n = seq_.size() + 1;  // the call's node would be seq_[n - 1]
  if (n < 2) return false;
  const std::size_t maxW = std::min(window_, n - 1);

  // (a) The tail is one more iteration of the loop just before it.
  for (std::size_t w = 1; w <= maxW; ++w) {
    Node& cand = seq_[n - 1 - w];
    if (!cand.loop || cand.body.size() != w || !matchesCall(cand.body.back(), call, p)) continue;
    if (!rangesMatch(cand.body, 0, seq_, n - w, w - 1)) continue;
    for (std::size_t j = 0; j + 1 < w; ++j) mergeInto(cand.body[j], seq_[n - w + j]);
    mergeCall(cand.body[w - 1], call, p);
    ++cand.open;
    for (std::size_t j = n - w; j + 1 < n; ++j) recycle(std::move(seq_[j]));
    seq_.resize(n - w);
    return true;
  }

  // (b) The last w nodes repeat the w before them: fold both into a new loop.
  for (std::size_t w = 1; 2 * w <= n && w <= window_; ++w) {
    if (!matchesCall(seq_[n - 1 - w], call, p)) continue;
    if (!rangesMatch(seq_, n - 2 * w, seq_, n - w, w - 1)) continue;
    Node loop = takeLoop();
    loop.body.assign(std::make_move_iterator(seq_.begin() + static_cast<std::ptrdiff_t>(n - 2 * w)),
                     std::make_move_iterator(seq_.begin() + static_cast<std::ptrdiff_t>(n - w)));
    for (std::size_t j = 0; j + 1 < w; ++j) mergeInto(loop.body[j], seq_[n - w + j]);
    mergeCall(loop.body[w - 1], call, p);
    loop.open = 2;
    loop.shape = loopShape(loop.body);
    for (std::size_t j = n - w; j + 1 < n; ++j) recycle(std::move(seq_[j]));
    seq_.resize(n - 2 * w);
    seq_.push_back(std::move(loop));
    return true;
  }
  return false;
}

// Rules (a) and (b) run when an event is appended, so a window that ends with a loop (a
// multigrid level's three halo exchanges, each a loop over the axes) would never fold: when the
// loop is complete nothing is appended after it. A loop at the top level is complete once a call
// arrives that does not begin another iteration of it (its node is not the body's first), and
// the tail is matched then, with the loop as its last node. A loop around one event (a run) is
// left out: it already matches as its event does.
bool LoopCompressor::tailLoopEndsBefore(const Node* next, const CallRecord* call, const Probe* p) const {
  if (seq_.empty() || !seq_.back().loop) return false;
  const Node& loop = seq_.back();
  if (loop.body.size() == 1 && !loop.body[0].loop) return false;
  return next ? !sameShape(loop.body[0], *next) : !matchesCall(loop.body[0], *call, *p);
}

void LoopCompressor::closeTailLoop() {
  const std::size_t before = seq_.size();
  compressTail();
  if (seq_.size() != before) ++topVersion_;
}

// The call as the next node: after the tail loop it completes is matched (above), rules (a) and
// (b) with the call as the tail's last node, else a node of its own.
void LoopCompressor::appendProbed(const CallRecord& call, const Probe& p) {
  if (tailLoopEndsBefore(nullptr, &call, &p)) closeTailLoop();
  if (!foldCall(call, p)) pushEvent(call);
}

void LoopCompressor::append(const CallRecord& call) {
  ++calls_;
  Probe p;
  if (direct_) probe(call, p);
  if (staging_) {
    if (p.direct && stageNext(call, p)) return;
    flush();
  }
  if (!p.direct) {
    ++topVersion_;
    Node n = eventNode(call);
    if (tailLoopEndsBefore(&n, nullptr, nullptr)) closeTailLoop();
    seq_.push_back(std::move(n));
    compressTail();
    return;
  }
  if (tailLoopEndsBefore(nullptr, &call, &p)) closeTailLoop();
  if (foldCall(call, p)) {
    ++topVersion_;
    return;
  }
  if (stageStart(call, p)) return;  // instead of the node no rule folded
  ++topVersion_;
  pushEvent(call);
}

void LoopCompressor::flush() {
  if (!staging_) return;
  staging_ = false;
  ++topVersion_;
  const std::size_t n = nStaged_;
  nStaged_ = 0;
  for (std::size_t i = 0; i < n; ++i) appendProbed(staged_[i].call, staged_[i].probe);
}

bool LoopCompressor::stageable() {
  if (stageableVersion_ == topVersion_) return stageableCached_;
  stageableVersion_ = topVersion_;
  stageableCached_ = false;
  if (seq_.empty() || !seq_.back().loop) return false;
  const Node& loop = seq_.back();
  if (loop.body.size() < 2 || loop.body.size() > window_) return false;
  for (const Node& b : loop.body)
    if (b.loop && (b.body.size() != 1 || b.body[0].loop)) return false;  // events and runs only
  // No node within reach of rules (a) and (b) may have the loop's shape.
  const std::size_t last = seq_.size() - 1;
  for (std::size_t i = last > 2 * window_ ? last - 2 * window_ : 0; i < last; ++i) {
    const Node& n = seq_[i];
    if (n.shape == loop.shape) return false;
    if (n.loop && n.body.size() >= 2)
      for (const Node& b : n.body)
        if (b.shape == loop.shape) return false;
  }
  stageableCached_ = true;
  return true;
}

bool LoopCompressor::stageStart(const CallRecord& call, const Probe& p) {
  if (!stageable() || !matchesCall(seq_.back().body[0], call, p)) return false;
  staging_ = true;
  nStaged_ = 0;
  stage(call, p, 0);
  return true;
}

void LoopCompressor::stage(const CallRecord& call, const Probe& p, std::uint32_t position) {
  if (nStaged_ == staged_.size()) staged_.emplace_back();
  Staged& s = staged_[nStaged_++];
  s.call = call;  // copy-assignment: the kept record's buffers are reused
  s.probe = p;
  s.position = position;
}

// The call of a staged iteration after the first: false if it matches neither the body position
// of the previous call (a run goes on) nor the next one.
bool LoopCompressor::stageNext(const CallRecord& call, const Probe& p) {
  if (nStaged_ >= kMaxStaged) return false;
  const std::vector<Node>& body = seq_.back().body;
  const std::uint32_t j = staged_[nStaged_ - 1].position;
  if (matchesCall(body[j], call, p)) {
    stage(call, p, j);
    return true;
  }
  if (j + 1 >= body.size() || !matchesCall(body[j + 1], call, p)) return false;
  if (j + 2 == body.size()) {
    completeStaged(call, p);
    return true;
  }
  stage(call, p, j + 1);
  return true;
}

// Rule (a) on the tail the staged calls would have made: a node per position, a run of r > 1
// calls a loop around the node of its first call (rule (b), then rule (a) with w = 1), each
// folded into its body position, the completing call into the last.
void LoopCompressor::completeStaged(const CallRecord& call, const Probe& p) {
  Node& loop = seq_.back();
  std::size_t i = 0;
  for (std::uint32_t j = 0; j + 1 < loop.body.size(); ++j) {
    std::size_t k = i + 1;
    while (k < nStaged_ && staged_[k].position == j) ++k;
    if (k == i + 1) {
      mergeCall(loop.body[j], staged_[i].call, staged_[i].probe);
    } else if (2 * (k - i) <= kFresh) {
      // What folding the run's loop does when its node holds its samples unsettled: one trip
      // count (the body position becomes a loop first if it was an event), and each call's
      // values and samples in order.
      if (!loop.body[j].loop) wrapInLoop(loop.body[j]);
      commit(loop.body[j]);
      loop.body[j].iters.push(static_cast<std::int64_t>(k - i));
      for (std::size_t m = i; m < k; ++m) mergeCall(loop.body[j].body[0], staged_[m].call, staged_[m].probe);
    } else {
      Node run = takeLoop();
      run.body.push_back(eventNode(staged_[i].call));
      for (std::size_t m = i + 1; m < k; ++m) mergeCall(run.body[0], staged_[m].call, staged_[m].probe);
      run.open = static_cast<std::int64_t>(k - i);
      run.shape = run.body[0].shape;
      mergeInto(loop.body[j], run);
      recycle(std::move(run));
    }
    i = k;
  }
  mergeCall(loop.body.back(), call, p);
  ++loop.open;
  nStaged_ = 0;
  staging_ = false;
  ++stagedIterations_;
}

void LoopCompressor::compressTail() {
  const std::size_t n = seq_.size();
  if (n < 2) return;
  const Node& last = seq_.back();
  const std::size_t maxW = std::min(window_, n - 1);

  // (a) The tail is one more iteration of the loop just before it.
  for (std::size_t w = 1; w <= maxW; ++w) {
    Node& cand = seq_[n - 1 - w];
    if (!cand.loop || cand.body.size() != w || !sameShape(cand.body.back(), last)) continue;
    if (!rangesMatch(cand.body, 0, seq_, n - w, w)) continue;
    for (std::size_t j = 0; j < w; ++j) mergeInto(cand.body[j], seq_[n - w + j]);
    ++cand.open;
    for (std::size_t j = n - w; j < n; ++j) recycle(std::move(seq_[j]));
    seq_.resize(n - w);
    return;
  }

  // (b) The last w nodes repeat the w before them: fold both into a new loop.
  for (std::size_t w = 1; 2 * w <= n && w <= window_; ++w) {
    if (!sameShape(seq_[n - 1 - w], last)) continue;
    if (!rangesMatch(seq_, n - 2 * w, seq_, n - w, w)) continue;
    Node loop = takeLoop();
    loop.body.assign(std::make_move_iterator(seq_.begin() + static_cast<std::ptrdiff_t>(n - 2 * w)),
                     std::make_move_iterator(seq_.begin() + static_cast<std::ptrdiff_t>(n - w)));
    for (std::size_t j = 0; j < w; ++j) mergeInto(loop.body[j], seq_[n - w + j]);
    loop.open = 2;
    loop.shape = loopShape(loop.body);
    for (std::size_t j = n - w; j < n; ++j) recycle(std::move(seq_[j]));
    seq_.resize(n - 2 * w);
    seq_.push_back(std::move(loop));
    return;
  }
}

std::size_t LoopCompressor::countNodes(const std::vector<Node>& seq) {
  std::size_t n = 0;
  for (const Node& x : seq) n += 1 + (x.loop ? countNodes(x.body) : 0);
  return n;
}

std::size_t LoopCompressor::totalNodes() {
  flush();
  return countNodes(seq_);
}

void LoopCompressor::flatten(const std::vector<Node>& seq, Trace& out, Rank rank, Rank numRanks,
                             const std::vector<std::string>& siteNames) const {
  const RankList self = RankList::single(rank);
  for (const Node& node : seq) {
    if (node.loop) {
      const std::size_t first = out.events.size();
      flatten(node.body, out, rank, numRanks, siteNames);
      ElasticSeq iters = node.iters;
      if (node.open > 0) iters.push(node.open);
      LoopLevel level;
      level.iter.push_back({self, iters.period()});
      level.mem.push_back({self, {static_cast<std::int64_t>(out.events.size() - first)}});
      auto& loops = out.events[first].loops;
      loops.insert(loops.begin(), std::move(level));  // enclosing loops come first
      continue;
    }
    Event e;
    e.id = static_cast<std::int64_t>(out.events.size());
    e.op = node.op;
    e.site = out.internSite(siteNames.at(node.site));
    e.ranks = self;
    for (const Slot& s : node.slots) {
      if (s.values.empty()) continue;
      ElasticSeq values = s.values;
      bool relative = false;
      if (isPeerParam(s.param)) {
        relative = std::all_of(values.period().begin(), values.period().end(), [&](std::int64_t v) {
          return (v >= 0 && v < numRanks) || (s.param == Param::Source && v == kAnySource);
        });
        if (relative)
          values.transform([&](std::int64_t v) { return v == kAnySource ? v : ((v - rank) % numRanks + numRanks) % numRanks; });
      }
      std::vector<std::int64_t> list = values.period();
      if (s.vectorLength > 0) {
        // Whole vectors: repeat the period up to a multiple of the vector length (at most the
        // whole sequence, which is one).
        const auto p = static_cast<std::int64_t>(list.size());
        const std::int64_t want = std::min(std::lcm(p, s.vectorLength), values.size());
        for (std::int64_t i = p; i < want; ++i) list.push_back(list[static_cast<std::size_t>(i % p)]);
      }
      e.setParam(s.param, {ValueGroup{self, std::move(list)}}, relative);
    }
    Node settled;
    const std::vector<Stat>* stats = &node.stats;
    if (!node.fresh.empty()) {  // samples not yet in Stats
      settled.stats = node.stats;
      settled.fresh = node.fresh;
      settle(settled);
      stats = &settled.stats;
    }
    for (const Stat& s : *stats) {
      TimeStat ts;
      ts.phase = s.phase;
      ts.unit = TimeUnit::Microseconds;
      ts.after = s.after < 0 ? kNoSite : out.internSite(siteNames.at(static_cast<std::size_t>(s.after)));
      ts.hist = toHistogram(s.acc, rank);
      // Drift over calls is kept for compute times only: times inside MPI calls wait for other
      // ranks, and their jitter would write ranges into the traces of steady codes.
      if (s.phase != Phase::Compute) ts.hist.calls.clear();
      // Compute times keep their rank (a timing sub-group of one) until clustering merges the
      // ranks that agree (record/Clustering.cpp, mergeStats).
      if (s.phase == Phase::Compute) ts.ranks = self;
      e.stats.push_back(std::move(ts));
    }
    out.events.push_back(std::move(e));
  }
}

Trace LoopCompressor::toTrace(Rank rank, Rank numRanks, const std::vector<std::string>& siteNames) {
  flush();
  Trace t;
  t.numRanks = numRanks;
  t.origin = "tracegen-record";
  flatten(seq_, t, rank, numRanks, siteNames);
  return t;
}

}  // namespace tracegen::record
