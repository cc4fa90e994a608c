#include "record/ElasticSeq.h"

#include <algorithm>

namespace tracegen::record {

ElasticSeq ElasticSeq::repeated(std::int64_t v, std::int64_t n) {
  ElasticSeq s;
  if (n > 0) {
    s.vals_.assign(1, v);
    s.n_ = n;
  }
  return s;
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

void ElasticSeq::push(std::int64_t v) {
  if (n_ == 0) {
    vals_.assign(1, v);
    pi_.clear();
    n_ = 1;
    return;
  }
  const std::size_t p = vals_.size();
  // p == 1 (a constant, the common case) needs no division.
  if (vals_[p == 1 ? 0 : static_cast<std::size_t>(n_ % static_cast<std::int64_t>(p))] == v) {
    ++n_;  // continues the period
    return;
  }
  // Materialise s[p..n) from the period, then v, extending the prefix function as we go.
  if (pi_.size() != p) buildPrefixFunction();
  const auto n = static_cast<std::size_t>(n_);
  vals_.reserve(n + 1);
  pi_.reserve(n + 1);
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
  const auto p = static_cast<std::int64_t>(vals_.size());
  const auto q = static_cast<std::int64_t>(other.vals_.size());
  const std::int64_t check = std::min(other.n_, p + q);
  bool continues = true;
  for (std::int64_t j = 0; j < check && continues; ++j)
    continues = other.at(j) == vals_[static_cast<std::size_t>((n_ + j) % p)];
  if (continues) {
    n_ += other.n_;
    return;
  }
  for (std::int64_t j = 0; j < other.n_; ++j) push(other.at(j));
}

}  // namespace tracegen::record
