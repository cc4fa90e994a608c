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

void ElasticSeq::buildPrefixFunction() {
  pi_.assign(vals_.size(), 0);
  for (std::size_t i = 1; i < vals_.size(); ++i) {
    std::int64_t k = pi_[i - 1];
    while (k > 0 && vals_[static_cast<std::size_t>(k)] != vals_[i]) k = pi_[static_cast<std::size_t>(k - 1)];
    if (vals_[static_cast<std::size_t>(k)] == vals_[i]) ++k;
    pi_[i] = k;
  }
}

void ElasticSeq::pushNew(std::int64_t v) {
  if (n_ == 0) {
    vals_.assign(1, v);
    pi_.clear();
    n_ = 1;
    pos_ = 0;
    return;
  }
  const std::size_t p = vals_.size();
  // Materialise s[p..n) from the period, then v, extending the prefix function as we go (the
  // vectors grow geometrically and keep their capacity when the period folds back).
  if (pi_.size() != p) buildPrefixFunction();
  const auto n = static_cast<std::size_t>(n_);
  for (std::size_t i = p; i <= n; ++i) {
    const std::int64_t x = i < n ? vals_[i % p] : v;
    vals_.push_back(x);
    std::int64_t k = pi_[i - 1];
    while (k > 0 && vals_[static_cast<std::size_t>(k)] != x) k = pi_[static_cast<std::size_t>(k - 1)];
    if (vals_[static_cast<std::size_t>(k)] == x) ++k;
    pi_.push_back(k);
  }
  n_ = static_cast<std::int64_t>(n + 1);
  const auto period = static_cast<std::size_t>(n_ - pi_.back());
  vals_.resize(period);
  pi_.resize(period);
  pos_ = static_cast<std::size_t>(n_ % static_cast<std::int64_t>(period));
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
  for (std::int64_t j = 0; j < other.n_; ++j) push(other.at(j));
}

}  // namespace tracegen::record
