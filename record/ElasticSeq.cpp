#include "record/ElasticSeq.h"

#include <algorithm>

namespace tracegen::record {

ElasticSeq ElasticSeq::repeated(std::int64_t v, std::int64_t n) {
  ElasticSeq s;
  if (n > 0) {
    s.vals_.assign(1, v);
    s.n_ = n;
  }
  return s;  // pos_ = n mod 1 = 0
}

void ElasticSeq::buildPrefixFunction() const {
  pi_.assign(vals_.size(), 0);
  for (std::size_t i = 1; i < vals_.size(); ++i) {
    std::int64_t k = pi_[i - 1];
    while (k > 0 && vals_[static_cast<std::size_t>(k)] != vals_[i]) k = pi_[static_cast<std::size_t>(k - 1)];
    if (vals_[static_cast<std::size_t>(k)] == vals_[i]) ++k;
    pi_[i] = k;
  }
}

// The prefix function of a prefix is the prefix of the prefix function, so the period's keeps.
void ElasticSeq::foldRaw() const {
  raw_ = false;
  buildPrefixFunction();
  const auto period = static_cast<std::size_t>(n_ - pi_.back());
  vals_.resize(period);
  pi_.resize(period);
  pos_ = static_cast<std::size_t>(n_ % static_cast<std::int64_t>(period));
}

void ElasticSeq::pushNew(std::int64_t v) {
  if (n_ == 0) {
    vals_.assign(1, v);
    pi_.clear();
    n_ = 1;
    pos_ = 0;
    return;
  }
  if (raw_) {
    if (vals_.size() < kRawMax) {
      vals_.push_back(v);
      ++n_;
      return;
    }
    foldRaw();  // grown past the raw bound: the period, then as any folded sequence
    push(v);
    return;
  }
  const std::size_t p = vals_.size();
  const auto n = static_cast<std::size_t>(n_);
  if (n < kRawMax) {
    // Short: s[p..n) from the period and v, every value kept until read or grown.
    for (std::size_t i = p, k = 0; i < n; ++i) {
      const std::int64_t x = vals_[k];
      vals_.push_back(x);
      if (++k == p) k = 0;
    }
    vals_.push_back(v);
    ++n_;
    raw_ = true;
    return;
  }
  // Materialise s[p..n) from the period, then v, extending the prefix function as we go (the
  // vectors grow geometrically and keep their capacity when the period folds back).
  if (pi_.size() != p) buildPrefixFunction();
  for (std::size_t i = p, k = 0; i <= n; ++i) {
    const std::int64_t x = i < n ? vals_[k] : v;
    if (++k == p) k = 0;
    vals_.push_back(x);
    std::int64_t j = pi_[i - 1];
    while (j > 0 && vals_[static_cast<std::size_t>(j)] != x) j = pi_[static_cast<std::size_t>(j - 1)];
    if (vals_[static_cast<std::size_t>(j)] == x) ++j;
    pi_.push_back(j);
  }
  n_ = static_cast<std::int64_t>(n + 1);
  const auto period = static_cast<std::size_t>(n_ - pi_.back());
  vals_.resize(period);
  pi_.resize(period);
  // The new period is at least half the length (see above): a subtraction or two, no division.
  std::size_t pos = n + 1;
  while (pos >= period) pos -= period;
  pos_ = pos;
}

void ElasticSeq::append(const ElasticSeq& other) {
  if (other.n_ == 0) return;
  if (other.n_ == 1 && n_ > 0) {  // one more execution: the common case while recording
    push(other.vals_[0]);
    return;
  }
  if (n_ == 0) {
    *this = other;
    return;
  }
  if (raw_ && !other.raw_) fold();  // `other` may be long: compared by period below
  if (other.raw_) {
    // A short sequence made anew (a call's node in the current loop iteration): its values in
    // order; a continued period costs a comparison each.
    const std::size_t q = other.vals_.size();
    for (std::int64_t j = 0, k = 0; j < other.n_; ++j) {
      push(other.vals_[static_cast<std::size_t>(k)]);
      if (static_cast<std::size_t>(++k) == q) k = 0;
    }
    return;
  }
  // Two periodic sequences (periods p and q) that agree on p + q positions agree everywhere
  // (Fine-Wilf), so that many comparisons decide whether `other` just continues our period.
  const std::size_t p = vals_.size();
  const std::size_t q = other.vals_.size();
  const std::int64_t check = std::min(other.n_, static_cast<std::int64_t>(p + q));
  bool continues = true;
  for (std::size_t j = 0, i = pos_, k = 0; static_cast<std::int64_t>(j) < check && continues; ++j) {
    continues = other.vals_[k] == vals_[i];
    if (++i == p) i = 0;
    if (++k == q) k = 0;
  }
  if (continues) {
    n_ += other.n_;
    pos_ = static_cast<std::size_t>(n_ % static_cast<std::int64_t>(p));
    return;
  }
  for (std::int64_t j = 0, k = 0; j < other.n_; ++j) {
    push(other.vals_[static_cast<std::size_t>(k)]);
    if (static_cast<std::size_t>(++k) == q) k = 0;
  }
}

}  // namespace tracegen::record
