// ElasticSeq: one parameter's values over all executions of an event by one rank, kept as its
// shortest period.
//
// The trace model consumes a value list cyclically, one value per execution, so a sequence
// s[0..n) can be stored as its shortest period u = s[0..p) with s[i] = u[i mod p]: a constant
// becomes one value, an alternation two, however many timesteps ran. Appending is O(1) while the
// new value continues the period. When it does not, the smallest period of the longer sequence
// is at least n - p + 1 (by the Fine-Wilf theorem, a shorter one would make the old period
// divide it and predict the value), so the stored prefix is extended to n + 1 values and the
// KMP prefix function, kept for the stored prefix, is extended with it; the new period is
// (n + 1) - pi[n]. Extensions double the stored length between re-foldings, so appends are
// amortised O(1) and an aperiodic sequence costs what its length costs. The prefix function is
// built only at the first re-folding: a constant, the most common sequence, is one allocation.
// The position in the period where the next value falls, n mod p, is kept as a cursor, so that
// continuing the period (the recorder's per-call case) costs a comparison and no division.
//
// Short sequences are folded lazily: a sequence of at most kRawMax values whose period breaks
// keeps every value as it comes (raw) and is folded to its period (one KMP pass) only when it
// is read or grows past kRawMax. The recorder makes such sequences anew at every loop iteration
// (the values of a call's node until the node is folded into its loop, e.g. tags cycling over
// the directions, or a wait's request list), and appending them to a loop body's sequence reads
// them in order without folding them at all. Every reader sees the shortest period, so the
// representation (and the trace) is the same either way.
#pragma once

#include <cstdint>
#include <vector>

namespace tracegen::record {

class ElasticSeq {
 public:
  static constexpr std::size_t kRawMax = 64;

  // n copies of v.
  static ElasticSeq repeated(std::int64_t v, std::int64_t n);

  void push(std::int64_t v) {
    if (!raw_ && n_ > 0 && vals_[pos_] == v) {  // continues the period: inline, the per-call case
      ++n_;
      if (++pos_ == vals_.size()) pos_ = 0;
      return;
    }
    pushNew(v);
  }
  // Empties the sequence, keeping its buffers' capacity.
  void clear() {
    vals_.clear();
    pi_.clear();
    n_ = 0;
    pos_ = 0;
    raw_ = false;
  }
  // Appends every value of `other` in order (the later executions of a merged loop body).
  void append(const ElasticSeq& other);
  // Applies a bijection to every value (a bijection keeps the shortest period).
  template <class F>
  void transform(F f) {
    for (auto& v : vals_) v = f(v);
  }

  std::int64_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  std::int64_t at(std::int64_t i) const {
    fold();
    return vals_[static_cast<std::size_t>(i % static_cast<std::int64_t>(vals_.size()))];
  }
  // The shortest period: the value list written to the trace.
  const std::vector<std::int64_t>& period() const {
    fold();
    return vals_;
  }
  bool operator==(const ElasticSeq& o) const { return n_ == o.n_ && period() == o.period(); }

 private:
  void buildPrefixFunction() const;
  void pushNew(std::int64_t v);  // push() of a value that does not continue the period (or raw)
  void fold() const {
    if (raw_) foldRaw();
  }
  void foldRaw() const;  // raw values -> their shortest period

  // Logically the sequence; folding a raw sequence (in const readers) only changes its form.
  mutable std::vector<std::int64_t> vals_;  // s[0..p), p the shortest period of s[0..n); raw: s[0..n)
  mutable std::vector<std::int64_t> pi_;    // KMP prefix function of vals_, or empty until needed
  std::int64_t n_ = 0;
  mutable std::size_t pos_ = 0;  // n_ mod vals_.size() (0 while empty; unused while raw)
  mutable bool raw_ = false;     // vals_ holds every value, not yet folded
};

}  // namespace tracegen::record
