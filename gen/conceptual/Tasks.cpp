// The coNCePTuaL backend's task descriptions: a rank set as the shortest description
// gen/RankSetText.h finds (acting tasks, targets where ALL TASKS is illegal, single tasks, a
// partner at an offset), remembered per set, since a statement's cases name the same few sets again
// and again.
#include "gen/conceptual/NcptlBackend.h"
#include "ncptl/Lexer.h"

namespace tracegen::gen::conceptual {

// ncptlTasks's text in our spelling: keywords upper case, names as they are.
std::string Renderer::upcaseKeywords(const std::string& text) {
  ncptl::LexResult lr = ncptl::lex(text);
  std::string out = text;
  for (const auto& t : lr.tokens)
    if (t.kind == ncptl::Tok::Keyword)
      for (std::size_t i = t.where.begin; i < t.where.end; ++i)
        out[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[i])));
  return out;
}

// The acting tasks; with `bindVar` the description binds `t` (for partner expressions).
Renderer::Desc Renderer::acting(const RankList& r, bool bindVar, const std::vector<Split>& splits) {
  if (scaleFree()) return classTasks(r, "t", false, bindVar, splits);
  if (r.size() == 1 && !bindVar) return singleDesc(*r.first());
  if (r == all_ && !bindVar) {
    data d;
    d.set("all", true);
    return {fill("tasks", d), false};
  }
  RankExprOptions o;
  o.taskVar = "t";
  o.bindVariable = bindVar;
  return described(r, o);
}

// A target (TO side of SENDS/MULTICASTS, receivers of RECEIVES), where ALL TASKS is
// illegal (§3.2); binds `var` if it needs a variable at all.
Renderer::Desc Renderer::target(const RankList& r, const std::string& var, bool bindVar, const std::vector<Split>& splits) {
  if (scaleFree()) return classTasks(r, var, true, bindVar, splits);
  if (r.size() == 1 && !bindVar) return singleDesc(*r.first());
  RankExprOptions o;
  o.taskVar = var;
  o.target = true;
  o.bindVariable = bindVar;
  return described(r, o);
}

// Remembered per set and options: a statement's cases name the same few sets again and
// again, and each description lexes its text (upcaseKeywords) and fills a template.
Renderer::Desc Renderer::described(const RankList& r, const RankExprOptions& o) {
  std::string key = fmt::format("{}|{}|{}|{}|{}", r.str(), o.taskVar, o.target, o.bindVariable, o.comprehensionBudget);
  if (auto it = descriptions_.find(key); it != descriptions_.end()) return it->second;
  const RankShape& shape = shapeOf(r);
  data d;
  d.set("described", true);
  d.set("text", upcaseKeywords(ncptlTasks(shape, o)));
  Desc desc{fill("tasks", d), ncptlSingleTask(shape, o)};
  return descriptions_.emplace(std::move(key), std::move(desc)).first->second;
}

// The rank-ranges pass's shape of a set, or one found here for sets the pass did not see.
const RankShape& Renderer::shapeOf(const RankList& r) {
  const std::string key = r.str();
  if (auto it = p_.rankShapes.find(key); it != p_.rankShapes.end()) return it->second;
  auto it = shapes_.find(key);
  if (it == shapes_.end()) it = shapes_.emplace(key, rankShape(r, p_.numRanks)).first;
  return it->second;
}

Renderer::Desc Renderer::singleDesc(Rank r) {
  data d;
  d.set("single", true);
  d.set("rank", std::to_string(r));
  return {fill("tasks", d), true};
}

std::string Renderer::allOther() {
  data d;
  d.set("allOther", true);
  return fill("tasks", d);
}

// `t+1`, `t-2`, `(t+3) MOD num_tasks`: the partner at `offset` from the ranks `r`.
std::string Renderer::peerOffset(std::int64_t offset, const RankList& r) {
  // The direction that stays inside 0 … P-1 for every rank (no MOD needed), else the
  // shorter one, wrapped: (t+1) MOD num_tasks, (t+num_tasks-1) MOD num_tasks.
  const PeerOffset peer = gen::peerOffset(offset, r, p_.numRanks);
  const std::int64_t signedOff = peer.offset;
  data d;
  d.set("wrap", peer.wrap);
  d.set("var", "t");
  d.set("plus", signedOff > 0);
  d.set("minus", signedOff < 0);
  d.set("offset", std::to_string(signedOff < 0 ? -signedOff : signedOff));
  return fill("peer", d);
}

}  // namespace tracegen::gen::conceptual
