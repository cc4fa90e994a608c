#include "record/Wire.h"

#include <cstring>
#include <stdexcept>

namespace tracegen::record {

namespace {
class Writer {
 public:
  void u(std::uint64_t v) {
    while (v >= 0x80) {
      out.push_back(static_cast<std::uint8_t>(v | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<std::uint8_t>(v));
  }
  void i(std::int64_t v) { u((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63)); }
  void d(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    for (int k = 0; k < 8; ++k) out.push_back(static_cast<std::uint8_t>(bits >> (8 * k)));
  }
  void s(const std::string& v) {
    u(v.size());
    out.insert(out.end(), v.begin(), v.end());
  }
  void ints(const std::vector<std::int64_t>& v) {
    u(v.size());
    for (auto x : v) i(x);
  }
  void ranks(const RankList& l) {
    u(l.tuples().size());
    for (const RankTuple& t : l.tuples()) {
      i(t.start);
      u(t.dims.size());
      for (const RankDim& dim : t.dims) {
        i(dim.iters);
        i(dim.stride);
      }
    }
  }
  void groups(const std::vector<ValueGroup>& gs) {
    u(gs.size());
    for (const ValueGroup& g : gs) {
      ranks(g.ranks);
      ints(g.values);
    }
  }
  void hist(const Histogram& h) {
    i(h.n);
    d(h.avg);
    i(h.minRank);
    d(h.min);
    i(h.maxRank);
    d(h.max);
    u(h.bins.size());
    for (const Bin& b : h.bins) {
      d(b.start);
      d(b.min);
      d(b.avg);
      d(b.max);
      d(b.end);
      i(b.freq);
    }
    u(h.calls.size());
    for (const CallRange& r : h.calls) {
      i(r.first);
      d(r.avg);
      i(r.n);
    }
  }
  void trace(const Trace& t) {
    i(t.numRanks);
    s(t.origin);
    u(t.worldPeers ? 1 : 0);
    groups(t.memoryKb);
    d(t.beforeInitUs);
    u(t.sites.size());
    for (const auto& x : t.sites) s(x);
    u(t.datatypes.size());
    for (const Datatype& dt : t.datatypes) {
      i(dt.id);
      s(dt.name);
      i(dt.size);
    }
    u(t.comms.size());
    for (const Communicator& c : t.comms) {
      i(c.id);
      s(c.kind);
      u(c.instances.size());
      for (const auto& inst : c.instances) ranks(inst);
      u(c.orders.size());
      for (const auto& o : c.orders) {
        u(o.size());
        for (Rank x : o) i(x);
      }
    }
    u(t.events.size());
    for (const Event& e : t.events) {
      i(e.id);
      u(static_cast<std::uint64_t>(e.op));
      i(e.site);
      u(e.mergedSites.size());
      for (SiteId x : e.mergedSites) i(x);
      ranks(e.ranks);
      u(e.loops.size());
      for (const LoopLevel& lv : e.loops) {
        groups(lv.iter);
        groups(lv.mem);
      }
      u(e.params.size());
      for (const ParamValues& pv : e.params) {
        u(static_cast<std::uint64_t>(pv.param));
        u(pv.relative ? 1 : 0);
        groups(pv.groups);
      }
      u(e.stats.size());
      for (const TimeStat& st : e.stats) {
        u(static_cast<std::uint64_t>(st.phase));
        u(static_cast<std::uint64_t>(st.unit));
        i(st.after);
        hist(st.hist);
        ranks(st.ranks);
      }
      u(e.compute.size());
      for (const ComputeTime& c : e.compute) {
        i(c.after);
        d(c.us);
        ranks(c.ranks);
        u(c.calls.size());
        for (const ComputeTime::ByCall& b : c.calls) {
          i(b.first);
          d(b.us);
        }
      }
    }
  }
  Bytes out;
};

class Reader {
 public:
  explicit Reader(const Bytes& b) : b_(b) {}
  std::uint64_t u() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const std::uint8_t c = byte();
      v |= static_cast<std::uint64_t>(c & 0x7f) << shift;
      if ((c & 0x80) == 0) return v;
    }
    throw std::runtime_error("recorder message: bad varint");
  }
  std::int64_t i() {
    const std::uint64_t z = u();
    return static_cast<std::int64_t>(z >> 1) ^ -static_cast<std::int64_t>(z & 1);
  }
  double d() {
    std::uint64_t bits = 0;
    for (int k = 0; k < 8; ++k) bits |= static_cast<std::uint64_t>(byte()) << (8 * k);
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  std::size_t count() {
    const std::uint64_t n = u();
    if (n > b_.size() - pos_ + 1) throw std::runtime_error("recorder message: bad length");
    return static_cast<std::size_t>(n);
  }
  std::string s() {
    const std::size_t n = count();
    if (pos_ + n > b_.size()) throw std::runtime_error("recorder message: truncated");
    std::string v(reinterpret_cast<const char*>(b_.data() + pos_), n);
    pos_ += n;
    return v;
  }
  std::vector<std::int64_t> ints() {
    std::vector<std::int64_t> v(count());
    for (auto& x : v) x = i();
    return v;
  }
  RankList ranks() {
    std::vector<RankTuple> ts(count());
    for (RankTuple& t : ts) {
      t.start = i();
      t.dims.resize(count());
      for (RankDim& dim : t.dims) {
        dim.iters = i();
        dim.stride = i();
      }
    }
    return RankList(std::move(ts));
  }
  std::vector<ValueGroup> groups() {
    std::vector<ValueGroup> gs(count());
    for (ValueGroup& g : gs) {
      g.ranks = ranks();
      g.values = ints();
    }
    return gs;
  }
  Histogram hist() {
    Histogram h;
    h.n = i();
    h.avg = d();
    h.minRank = i();
    h.min = d();
    h.maxRank = i();
    h.max = d();
    h.bins.resize(count());
    for (Bin& b : h.bins) {
      b.start = d();
      b.min = d();
      b.avg = d();
      b.max = d();
      b.end = d();
      b.freq = i();
    }
    h.calls.resize(count());
    for (CallRange& r : h.calls) {
      r.first = i();
      r.avg = d();
      r.n = i();
    }
    return h;
  }
  Trace trace() {
    Trace t;
    t.numRanks = i();
    t.origin = s();
    t.worldPeers = u() != 0;
    t.memoryKb = groups();
    t.beforeInitUs = d();
    const std::size_t ns = count();
    for (std::size_t k = 0; k < ns; ++k) t.internSite(s());
    t.datatypes.resize(count());
    for (Datatype& dt : t.datatypes) {
      dt.id = i();
      dt.name = s();
      dt.size = i();
    }
    t.comms.resize(count());
    for (Communicator& c : t.comms) {
      c.id = i();
      c.kind = s();
      c.instances.resize(count());
      for (auto& inst : c.instances) inst = ranks();
      c.orders.resize(count());
      for (auto& o : c.orders) {
        o.resize(count());
        for (Rank& x : o) x = i();
      }
    }
    t.events.resize(count());
    for (Event& e : t.events) {
      e.id = i();
      e.op = op(u());
      e.site = site(i(), t);
      e.mergedSites.resize(count());
      for (SiteId& x : e.mergedSites) x = site(i(), t);
      e.ranks = ranks();
      e.loops.resize(count());
      for (LoopLevel& lv : e.loops) {
        lv.iter = groups();
        lv.mem = groups();
      }
      e.params.resize(count());
      for (ParamValues& pv : e.params) {
        const std::uint64_t p = u();
        if (p >= static_cast<std::uint64_t>(Param::Count_)) throw std::runtime_error("recorder message: bad parameter");
        pv.param = static_cast<Param>(p);
        pv.relative = u() != 0;
        pv.groups = groups();
      }
      e.stats.resize(count());
      for (TimeStat& st : e.stats) {
        st.phase = u() == 0 ? Phase::Compute : Phase::Mpi;
        st.unit = u() == 0 ? TimeUnit::Microseconds : TimeUnit::KiloInstructions;
        st.after = site(i(), t);
        st.hist = hist();
        st.ranks = ranks();
      }
      e.compute.resize(count());
      for (ComputeTime& c : e.compute) {
        c.after = site(i(), t);
        c.us = d();
        c.ranks = ranks();
        c.calls.resize(count());
        for (ComputeTime::ByCall& b : c.calls) {
          b.first = i();
          b.us = d();
        }
      }
    }
    return t;
  }
  bool done() const { return pos_ == b_.size(); }

 private:
  std::uint8_t byte() {
    if (pos_ >= b_.size()) throw std::runtime_error("recorder message: truncated");
    return b_[pos_++];
  }
  static Op op(std::uint64_t v) {
    if (v >= static_cast<std::uint64_t>(Op::Count_)) throw std::runtime_error("recorder message: bad operation");
    return static_cast<Op>(v);
  }
  static SiteId site(std::int64_t v, const Trace& t) {
    if (v < kNoSite || v >= static_cast<std::int64_t>(t.sites.size())) throw std::runtime_error("recorder message: bad site");
    return static_cast<SiteId>(v);
  }
  const Bytes& b_;
  std::size_t pos_ = 0;
};
}  // namespace

Bytes encodeTable(const ClusterTable& t) {
  Writer w;
  w.u(t.clusters.size());
  for (const ClusterEntry& e : t.clusters) {
    w.u(e.sig.shape);
    w.u(e.sig.params1);
    w.u(e.sig.params2);
    w.ranks(e.ranks);
  }
  w.u(t.comms.size());
  for (const CommEntry& c : t.comms) {
    w.i(c.id);
    w.s(c.kind);
    w.ranks(c.members);
    w.u(c.order.size());
    for (Rank x : c.order) w.i(x);
  }
  w.i(t.flags);
  return std::move(w.out);
}

ClusterTable decodeTable(const Bytes& b) {
  Reader r(b);
  ClusterTable t;
  t.clusters.resize(r.count());
  for (ClusterEntry& e : t.clusters) {
    e.sig.shape = r.u();
    e.sig.params1 = r.u();
    e.sig.params2 = r.u();
    e.ranks = r.ranks();
  }
  t.comms.resize(r.count());
  for (CommEntry& c : t.comms) {
    c.id = r.i();
    c.kind = r.s();
    c.members = r.ranks();
    c.order.resize(r.count());
    for (Rank& x : c.order) x = r.i();
  }
  t.flags = r.i();
  if (!r.done()) throw std::runtime_error("recorder message: trailing bytes");
  return t;
}

Bytes encodeTrace(const Trace& t) {
  Writer w;
  w.trace(t);
  return std::move(w.out);
}

Trace decodeTrace(const Bytes& b) {
  Reader r(b);
  Trace t = r.trace();
  if (!r.done()) throw std::runtime_error("recorder message: trailing bytes");
  return t;
}

Bytes encodePartials(const std::vector<Partial>& p) {
  Writer w;
  w.u(p.size());
  for (const Partial& x : p) {
    w.u(x.shape);
    w.trace(x.trace);
  }
  return std::move(w.out);
}

std::vector<Partial> decodePartials(const Bytes& b) {
  Reader r(b);
  std::vector<Partial> p(r.count());
  for (Partial& x : p) {
    x.shape = r.u();
    x.trace = r.trace();
  }
  if (!r.done()) throw std::runtime_error("recorder message: trailing bytes");
  return p;
}

}  // namespace tracegen::record
