// Tests of the coNCePTuaL checker (ncptl/): the ten example programs of §7 of the language
// reference are accepted, and one malformed program per enforced rule is rejected with the
// right line and message. Programs are small on purpose: each breaks exactly one rule, on a
// known line, after a valid preamble.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ncptl/Checker.h"
#include "ncptl/Lexer.h"
#include "ncptl/Parser.h"

namespace tracegen::ncptl {
namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string errorsOf(const CheckResult& r, std::string_view src) {
  std::string out;
  for (const auto& d : r.diagnostics)
    if (d.severity == Diagnostic::Severity::Error) out += formatDiagnostic("prog.ncptl", src, d);
  return out;
}

// ------------------------------------------------------------------------------------------
// The examples of §7

class ExampleTest : public ::testing::TestWithParam<int> {};

TEST_P(ExampleTest, IsAccepted) {
  const std::string path =
      std::string(TRACEGEN_SOURCE_DIR) + "/tests/data/ncptl/ex" + (GetParam() < 10 ? "0" : "") + std::to_string(GetParam()) + ".ncptl";
  const std::string src = readFile(path);
  ASSERT_FALSE(src.empty()) << path;
  CheckResult r = check(src);
  EXPECT_TRUE(r.ok()) << errorsOf(r, src);
  // No warnings either: the examples compile without warnings (§7).
  EXPECT_TRUE(r.diagnostics.empty()) << formatDiagnostic(path, src, r.diagnostics.front());
}

INSTANTIATE_TEST_SUITE_P(Reference, ExampleTest, ::testing::Range(1, 11));

// The examples that fix num_tasks get the per-task simulation, and pass it.
TEST(Examples, FixedTaskCountsAreSimulated) {
  for (int n : {5, 7}) {
    const std::string src = readFile(std::string(TRACEGEN_SOURCE_DIR) + "/tests/data/ncptl/ex0" + std::to_string(n) + ".ncptl");
    CheckResult r = check(src);
    EXPECT_TRUE(r.ok());
    EXPECT_TRUE(r.simulated) << "example " << n;
  }
}

// Example 9 uses a timed loop, MILLISECONDS and KILOBYTE, which §2.2 leaves outside «G»:
// the generated-code mode rejects exactly those (and the missing num_tasks assertion).
TEST(Examples, Example9IsOutsideTheGeneratorSubset) {
  const std::string src = readFile(std::string(TRACEGEN_SOURCE_DIR) + "/tests/data/ncptl/ex09.ncptl");
  CheckOptions o;
  o.generated = true;
  CheckResult r = check(src, o);
  std::vector<std::string> msgs;
  for (const auto& d : r.diagnostics) msgs.push_back(std::to_string(d.where.line) + ": " + d.message);
  ASSERT_EQ(msgs.size(), 5u) << ::testing::PrintToString(msgs);
  EXPECT_NE(msgs[0].find("num_tasks = P"), std::string::npos);
  EXPECT_NE(msgs[1].find("24: a timed loop (FOR <time>) is outside the generator subset"), std::string::npos);
  EXPECT_NE(msgs[2].find("24: the time unit MILLISECOND"), std::string::npos);
  EXPECT_NE(msgs[3].find("25: the size unit KILOBYTE"), std::string::npos);
  EXPECT_NE(msgs[4].find("26: the size unit KILOBYTE"), std::string::npos);
}

// The whole grammar of §2.2 parses; the generated-code mode rejects what is outside «G».
TEST(FullLanguage, AcceptedButOutsideTheGeneratorSubset) {
  const std::string src = readFile(std::string(TRACEGEN_SOURCE_DIR) + "/tests/data/ncptl/full_language.ncptl");
  ASSERT_FALSE(src.empty());
  CheckResult r = check(src);
  EXPECT_TRUE(r.ok()) << errorsOf(r, src);
  CheckOptions o;
  o.generated = true;
  CheckResult g = check(src, o);
  std::size_t outside = 0;
  for (const auto& d : g.diagnostics)
    outside += d.message.find("outside the generator subset") != std::string::npos;
  EXPECT_GE(outside, 20u) << errorsOf(g, src);
  for (const char* what : {"THE BACKEND DECLARES", "TASK GROUP", "A RANDOM TASK", "TOUCHES", "BACKEND EXECUTES",
                           "IS ASSIGNED TO", "A HISTOGRAM OF", "a timed loop", "SLEEPS", "UNIQUE", "a FROM/INTO BUFFER",
                           "an alignment clause", "a string tag", "MESH_DISTANCE", "MY TASK", "IS IN [a, b]",
                           "STORES ITS COUNTERS", "WHO RECEIVES THE RESULT", "the time unit SECOND"}) {
    bool found = false;
    for (const auto& d : g.diagnostics) found = found || d.message.find(what) != std::string::npos;
    EXPECT_TRUE(found) << what;
  }
}

// ------------------------------------------------------------------------------------------
// One rejected program per rule

struct Bad {
  const char* name;
  const char* program;  // appended to a valid header; line 4 is the first line of `program`
  int line;
  const char* message;  // a substring of the first error
  bool generated = false;
};

constexpr const char* kHeader =
    "REQUIRE LANGUAGE VERSION \"1.5\".\n"
    "reps IS \"Repetitions\" AND COMES FROM \"--reps\" OR \"-r\" WITH DEFAULT 3.\n"
    "ASSERT THAT \"four tasks\" WITH num_tasks = 4.\n";

const Bad kBad[] = {
    // §6 item 1: periods
    {"missing_period", "ALL TASKS SYNCHRONIZE\nTASK 0 COMPUTES FOR reps MICROSECONDS.", 4,
     "missing '.' after the top-level statement"},
    {"period_inside_braces", "FOR reps REPETITIONS {\n  ALL TASKS SYNCHRONIZE.\n  ALL TASKS SYNCHRONIZE\n}.", 5,
     "'.' is not allowed inside '{ ... }'"},
    // §6 item 2: nested IF
    {"nested_if", "IF reps > 1 THEN\n  IF reps > 2 THEN ALL TASKS SYNCHRONIZE OTHERWISE TASK 0 SYNCHRONIZES.", 5,
     "brace an IF nested in the THEN branch"},
    // §6 item 3: keywords as identifiers
    {"keyword_identifier", "LET root BE reps WHILE TASK 0 COMPUTES FOR root MICROSECONDS.", 4,
     "'ROOT' is a keyword and cannot be used as a LET variable"},
    // §6 item 4: the hyphen rule
    {"hyphen_rule", "TASK 0 COMPUTES FOR\n  reps - MAX(1, 2) MICROSECONDS.", 5, "'-' before the keyword MAX is deleted"},
    // §6 item 5: integer literals only
    {"fractional_literal", "TASK 0 COMPUTES FOR 2.5 MICROSECONDS.", 4, "fractional literal '2.5'"},
    {"plural_megabyte", "TASK 0 SENDS A 2 MEGABYTES MESSAGE TO TASK 1.", 4, "have no plural form"},
    {"bad_literal_suffix", "TASK 0 SENDS A 4KB BYTE MESSAGE TO TASK 1.", 4, "invalid integer literal '4KB'"},
    {"negative_duration", "TASK 0 COMPUTES FOR -5 MICROSECONDS.", 4, "negative duration"},
    // C operators
    {"c_operator", "IF reps != 3 THEN ALL TASKS SYNCHRONIZE.", 4, "'!=' is not a coNCePTuaL operator"},
    // §3.1: variables and scopes
    {"undeclared_variable", "TASK 0 COMPUTES FOR steps MICROSECONDS.", 4,
     "variable 'steps' must be declared before being used"},
    {"task_variable_in_message", "ALL TASKS s SEND A (s+1)*100 BYTE MESSAGE TO TASK s+1.", 4,
     "a task variable is not visible in a message specification"},
    {"loop_variable_out_of_scope", "FOR EACH i IN {1, ..., 3} { TASK i SYNCHRONIZES } THEN\nTASK i SYNCHRONIZES.", 5,
     "variable 'i' must be declared before being used"},
    {"redefine_num_tasks", "LET num_tasks BE 8 WHILE ALL TASKS SYNCHRONIZE.", 4, "redefinition of num_tasks"},
    {"let_uses_counter", "LET x BE elapsed_usecs WHILE TASK 0 COMPUTES FOR x MICROSECONDS.", 4,
     "may use num_tasks but no other predeclared variable"},
    {"counter_outside_logs", "IF elapsed_usecs > 10 THEN ALL TASKS SYNCHRONIZE.", 4,
     "counters are meaningful only in LOGS, OUTPUTS and BACKEND EXECUTES"},
    // §3.2: task descriptions
    {"all_tasks_target", "TASK 0 SENDS A 8 BYTE MESSAGE TO ALL TASKS.", 4, "ALL TASKS cannot be the target of SENDS"},
    {"all_tasks_receive", "ALL TASKS RECEIVE A 8 BYTE MESSAGE FROM TASK 0.", 4, "ALL TASKS cannot be the receivers"},
    {"all_other_acting", "ALL OTHER TASKS SYNCHRONIZE.", 4, "ALL OTHER TASKS cannot act"},
    {"ranges_both_sides", "TASKS {1, 2} RECEIVE A 8 BYTE MESSAGE FROM TASKS {0}.", 4,
     "range lists on both sides of one RECEIVE are ambiguous"},
    {"group_without_let", "TASK GROUP g SYNCHRONIZES.", 4, "needs an enclosing LET g BE <task set>"},
    // §3.3: determinism
    {"random_task_set", "TASK RANDOM_UNIFORM(0, 4) SYNCHRONIZES.", 4, "RANDOM_UNIFORM may not appear in a task description"},
    {"my_task_outside_if", "TASK MY TASK SYNCHRONIZES.", 4, "MY TASK is allowed only inside an IF condition"},
    // §3.5 / §6 item 10: REDUCE
    {"reduce_words", "ALL TASKS REDUCE 4 WORDS.", 4, "REDUCES works on INTEGERS or DOUBLEWORDS only"},
    {"reduce_result_differs", "ALL TASKS REDUCE 4 DOUBLEWORDS TO 2 DOUBLEWORDS.", 4,
     "must have the same item count and data type"},
    {"verification_mismatch", "TASK 0 SENDS A 8 BYTE MESSAGE WITH VERIFICATION TO TASK 1 WHO RECEIVES IT WITHOUT VERIFICATION.", 4,
     "must be received WITH VERIFICATION"},
    // §3.6 / §6 item 9: MULTICAST and c_mpi restrictions
    {"async_multicast", "TASK 0 ASYNCHRONOUSLY MULTICASTS A 8 BYTE MESSAGE TO ALL OTHER TASKS.", 4,
     "ASYNCHRONOUSLY MULTICASTS is not implemented"},
    {"multicast_tag", "TASK 0 MULTICASTS A 8 BYTE MESSAGE USING TAG 5 TO ALL OTHER TASKS.", 4, "MULTICASTS cannot use a tag"},
    {"multicast_alignment", "ALL TASKS MULTICAST A 8 BYTE 64 BYTE ALIGNED MESSAGE TO ALL OTHER TASKS.", 4,
     "more than one sender cannot have an alignment clause"},
    {"blocking_to_all_others", "ALL TASKS SEND A 8 BYTE MESSAGE TO ALL OTHER TASKS.", 4,
     "cannot send a blocking message to ALL OTHER TASKS"},
    {"blocking_self_send", "TASK 2 SENDS A 8 BYTE MESSAGE TO TASK 2.", 4, "a blocking send from a task to itself"},
    {"ampersand_in_output", "TASK 0 OUTPUTS reps & 1.", 4, "'&' cannot be used in OUTPUTS, LOGS"},
    {"huge_message", "TASK 0 SENDS A 3 GIGABYTE MESSAGE TO TASK 1.", 4, "c_mpi messages must be smaller than 2 GiB"},
    {"range_without_pattern", "FOR EACH n IN {1, 4, 9, ..., 81} TASK 0 COMPUTES FOR n MICROSECONDS.", 4,
     "neither an arithmetic nor a geometric progression"},
    // §6 item 8: AWAIT inside repetition bodies and before the end
    {"await_outside_loop",
     "FOR reps REPETITIONS {\n  ALL TASKS t ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE TO TASK t XOR 1\n} THEN\nALL TASKS AWAIT COMPLETION.",
     5, "post this asynchronous operation inside the FOR ... REPETITIONS loop of line 4"},
    {"never_awaited", "TASK 0 ASYNCHRONOUSLY SENDS A 8 BYTE MESSAGE TO UNSUSPECTING TASK 1 THEN\nTASK 1 RECEIVES A 8 BYTE MESSAGE FROM TASK 0.", 4,
     "task 0 never awaits the completion of this asynchronous operation"},
    {"awaited_by_wrong_task",
     "TASK 3 ASYNCHRONOUSLY RECEIVES A 8 BYTE MESSAGE FROM TASK 0 THEN\nTASK 0 SENDS A 8 BYTE MESSAGE TO UNSUSPECTING TASK 3 THEN\nTASK 0 AWAITS COMPLETION.",
     4, "task 3 never awaits"},
    // per-task simulation: matching and deadlocks (§4.7)
    {"unmatched_unsuspecting", "TASK 0 SENDS A 8 BYTE MESSAGE TO UNSUSPECTING TASK 1.", 4,
     "1 sent but 0 received by explicit RECEIVEs"},
    {"cyclic_blocking_ring", "ALL TASKS t SEND A 8 BYTE MESSAGE TO TASK (t+1) MOD num_tasks.", 4,
     "has a cycle (0 -> 1 -> 2 -> 3 -> 0)"},
    {"failing_assertion", "ASSERT THAT \"needs five\" WITH num_tasks >= 5.", 4, "fails with num_tasks = 4"},
    // AWAIT COMPLETION waits for every operation the task posted (§4.8): a receive loop that
    // awaits each receive before any task has sent (issue 29's halo exchange) deadlocks.
    {"await_before_the_sends",
     "FOR EACH d IN {1, 3} {\n  TASKS t SUCH THAT t >= 0 ASYNCHRONOUSLY RECEIVE A 8 BYTE MESSAGE FROM TASK t XOR d THEN\n"
     "  ALL TASKS AWAIT COMPLETION\n} THEN\n"
     "FOR EACH d IN {1, 3} {\n  ALL TASKS t ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE TO UNSUSPECTING TASK t XOR d\n} THEN\n"
     "ALL TASKS AWAIT COMPLETION.",
     6, "tasks 0-3 block forever in this AWAIT COMPLETION"},
    // The 1.5.1b run time pops an empty queue for an empty list comprehension.
    {"is_in_where_comprehension",
     "IF 0 IS NOT IN {num_tasks MOD ox FOR EACH ox IN {2, ..., SQRT(num_tasks)} WHERE ox > 2} THEN\n"
     "  ALL TASKS SYNCHRONIZE.",
     4, "IS NOT IN over a list comprehension that may be empty"},
    {"is_in_empty_generator", "IF reps IS IN {2*x FOR EACH x IN {0, 1, ..., reps - 4}} THEN ALL TASKS SYNCHRONIZE.", 4,
     "IS IN over a list comprehension that may be empty"},
    {"empty_comprehension_simulated", "FOR EACH x IN {y FOR EACH y IN {1, ..., num_tasks} WHERE y > num_tasks} {\n"
     "  ALL TASKS SYNCHRONIZE\n}.", 4, "this list comprehension is empty with num_tasks = 4"},
    // generated-code rules (§6 items 2, 17, 19; «G»)
    {"unbraced_body_generated", "FOR reps REPETITIONS ALL TASKS SYNCHRONIZE.", 4,
     "every loop body is braced", true},
    {"outside_g_generated", "TASK 0 SLEEPS FOR reps MICROSECONDS.", 4, "SLEEPS is outside the generator subset", true},
    {"unique_generated", "TASK 0 SENDS A UNIQUE 8 BYTE MESSAGE TO TASK 1.", 4, "UNIQUE is outside the generator subset", true},
};

class BadProgramTest : public ::testing::TestWithParam<Bad> {};

TEST_P(BadProgramTest, IsRejectedAtTheRightLine) {
  const Bad& b = GetParam();
  const std::string src = std::string(kHeader) + b.program + "\n";
  CheckOptions o;
  o.generated = b.generated;
  CheckResult r = check(src, o);
  ASSERT_FALSE(r.ok()) << b.name << " was accepted";
  const Diagnostic* first = nullptr;
  for (const auto& d : r.diagnostics)
    if (d.severity == Diagnostic::Severity::Error) {
      first = &d;
      break;
    }
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->where.line, b.line) << errorsOf(r, src);
  EXPECT_NE(first->message.find(b.message), std::string::npos) << errorsOf(r, src);
}

INSTANTIATE_TEST_SUITE_P(Rules, BadProgramTest, ::testing::ValuesIn(kBad),
                         [](const ::testing::TestParamInfo<Bad>& i) { return std::string(i.param.name); });

// The same header with a valid body is accepted, so every rejection above is the body's.
TEST(BadPrograms, HeaderAloneIsValid) {
  const std::string src = std::string(kHeader) + "TASK 0 COMPUTES FOR reps MICROSECONDS.\n";
  CheckOptions o;
  o.generated = true;
  CheckResult r = check(src, o);
  EXPECT_TRUE(r.ok()) << errorsOf(r, src);
  EXPECT_TRUE(r.simulated);
}

// ------------------------------------------------------------------------------------------
// Header declarations (§3.4) and the version requirement (§6 item 17)

TEST(Headers, RulesOfSection34) {
  struct Case {
    const char* header;
    const char* message;
  } cases[] = {
      {"x IS \"x\" AND COMES FROM \"--x\" OR \"-X\" WITH DEFAULT 1.", "short option \"-X\""},
      {"x IS \"x\" AND COMES FROM \"-x\" OR \"-x\" WITH DEFAULT 1.", "long option \"-x\""},
      {"x IS \"x\" AND COMES FROM \"--logfile\" OR \"-x\" WITH DEFAULT 1.", "reserved by the run-time library"},
      {"x IS \"x\" AND COMES FROM \"--x\" OR \"-x\" WITH DEFAULT num_tasks.", "may not use variables"},
      {"x IS \"x\" AND COMES FROM \"--x\" OR \"-x\" WITH DEFAULT 1.\n"
       "y IS \"y\" AND COMES FROM \"--x\" OR \"-y\" WITH DEFAULT 1.",
       "long option \"--x\" is declared twice"},
      {"num_tasks IS \"n\" AND COMES FROM \"--n\" OR \"-n\" WITH DEFAULT 1.", "redefinition of num_tasks"},
  };
  for (const auto& c : cases) {
    const std::string src = std::string("REQUIRE LANGUAGE VERSION \"1.5\".\n") + c.header + "\nTASK 0 SYNCHRONIZES.\n";
    CheckResult r = check(src);
    EXPECT_FALSE(r.ok()) << c.header;
    bool found = false;
    for (const auto& d : r.diagnostics) found = found || d.message.find(c.message) != std::string::npos;
    EXPECT_TRUE(found) << c.header << "\n" << errorsOf(r, src);
  }
}

TEST(Headers, LanguageVersion) {
  CheckResult missing = check("TASK 0 SYNCHRONIZES.\n");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.diagnostics[0].message.find("missing REQUIRE LANGUAGE VERSION \"1.5\""), std::string::npos);
  CheckResult wrong = check("REQUIRE LANGUAGE VERSION \"1.4\".\nTASK 0 SYNCHRONIZES.\n");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.diagnostics[0].where.line, 1);
  CheckResult late = check("REQUIRE LANGUAGE VERSION \"1.5\".\nTASK 0 SYNCHRONIZES.\nn IS \"n\" AND COMES FROM \"--n\" OR \"-n\" WITH DEFAULT 1.\n");
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.diagnostics[0].where.line, 3);
  EXPECT_NE(late.diagnostics[0].message.find("must precede the first statement"), std::string::npos);
}

// ------------------------------------------------------------------------------------------
// Lexer and parser details

TEST(Lexer, IntegerLiteralsAndSynonyms) {
  LexResult r = lex("64K 2M 1G 8E3 95TH 1E0 -ABS(5) 64-BYTE SENDS TaSkS");
  std::vector<std::int64_t> ints;
  for (const auto& t : r.tokens)
    if (t.kind == Tok::Integer) ints.push_back(t.value);
  EXPECT_EQ(ints, (std::vector<std::int64_t>{65536, 2 * 1024 * 1024, 1024 * 1024 * 1024, 8000, 95, 1, 5, 64}));
  // The hyphen before ABS is deleted and reported; the one in 64-BYTE silently.
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_NE(r.diagnostics[0].message.find("hyphen rule"), std::string::npos);
  int sends = 0, tasks = 0;
  for (const auto& t : r.tokens) {
    sends += t.kind == Tok::Keyword && t.kw == Kw::SEND;
    tasks += t.kind == Tok::Keyword && t.kw == Kw::TASK;
  }
  EXPECT_EQ(sends, 1);
  EXPECT_EQ(tasks, 1);
}

TEST(Parser, PrecedenceAndAmbiguities) {
  // `(...)` opening a relation or an arithmetic expression; comprehensions; WHO RECEIVES IT.
  const char* ok =
      "REQUIRE LANGUAGE VERSION \"1.5\".\n"
      "ASSERT THAT \"x\" WITH (num_tasks MOD 2) = 0 /\\ (num_tasks > 1 \\/ num_tasks = 1).\n"
      "TASKS {y*2 + x FOR EACH y IN {0, 1} FOR EACH x IN {0, 1} WHERE x <> y} SYNCHRONIZE.\n"
      "ALL TASKS t ASYNCHRONOUSLY SEND A 8 BYTE MESSAGE TO TASK t XOR 1 WHO RECEIVES IT ASYNCHRONOUSLY THEN\n"
      "ALL TASKS AWAIT COMPLETION.\n"
      "ALL TASKS t COMPUTE FOR 2**3**2 - t*3 IF t > 0 OTHERWISE 1 MICROSECONDS.\n"
      "TASK 0 LOGS THE MINIMUM AND THE MAXIMUM OF elapsed_usecs AS \"t\" AND THE 95 PERCENTILE OF elapsed_usecs AS \"p\".\n";
  CheckResult r = check(ok);
  EXPECT_TRUE(r.ok()) << errorsOf(r, ok);
  // Comparisons do not chain (§2.3).
  CheckResult chain = check("REQUIRE LANGUAGE VERSION \"1.5\".\nIF 1 < 2 < 3 THEN TASK 0 SYNCHRONIZES.\n");
  EXPECT_FALSE(chain.ok());
  // A bare data type needs SIZED (§2.4 item 6).
  CheckResult bare = check("REQUIRE LANGUAGE VERSION \"1.5\".\nTASK 0 SENDS A DOUBLEWORD MESSAGE TO TASK 1.\n");
  ASSERT_FALSE(bare.ok());
  EXPECT_NE(bare.diagnostics[0].message.find("a bare data type needs SIZED"), std::string::npos);
}

TEST(Parser, RecoversAtTheNextPeriod) {
  const std::string src =
      "REQUIRE LANGUAGE VERSION \"1.5\".\n"
      "TASK 0 FROBNICATES.\n"
      "TASK 0 SENDS A 8 BYTE MESSAGE TO ALL TASKS.\n";
  CheckResult r = check(src);
  ASSERT_EQ(r.errorCount(), 2u) << errorsOf(r, src);
  EXPECT_EQ(r.diagnostics[0].where.line, 2);
  EXPECT_EQ(r.diagnostics[1].where.line, 3);
}

TEST(Diagnostics, ClangStyleWithTheOffendingText) {
  const std::string src = "REQUIRE LANGUAGE VERSION \"1.5\".\nTASK 0 SENDS A 8 BYTE MESSAGE TO ALL TASKS.\n";
  CheckResult r = check(src);
  ASSERT_EQ(r.errorCount(), 1u);
  EXPECT_EQ(formatDiagnostic("b.ncptl", src, r.diagnostics[0]),
            "b.ncptl:2: error: ALL TASKS cannot be the target of SENDS; use ALL OTHER TASKS or TASKS d SUCH THAT d >= 0 "
            "(§3.2, §6 item 12)\n"
            "    TASK 0 SENDS A 8 BYTE MESSAGE TO ALL TASKS.\n"
            "                                     ^~~~~~~~~\n");
}

TEST(Warnings, UnusedVariablesDoNotReject) {
  CheckResult r = check("REQUIRE LANGUAGE VERSION \"1.5\".\nLET x BE 3 WHILE TASK 0 SYNCHRONIZES.\n");
  EXPECT_TRUE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::Warning);
  EXPECT_NE(r.diagnostics[0].message.find("'x' is defined but never used"), std::string::npos);
}

// The simulation evaluates a task set named by constants once, but the budget counts every
// execution at what evaluating it costs: the budget says how much program a simulation covers,
// the same with the memo as without (a program the budget cannot cover is not simulated, and
// one it covers is).
TEST(Simulation, AMemoisedTaskSetCostsTheBudgetWhatItsEvaluationDid) {
  const std::string src =
      "Require language version \"1.5\".\n"
      "FOR EACH i IN {1, ..., 20000} {\n"
      "  TASKS t SUCH THAT t IS IN {0, 2, 4, 6} SEND A i BYTE MESSAGE TO TASK t+1\n"
      "}.\n";
  CheckOptions o;
  o.tasks = 8;
  // About 2.1 million steps, 0.5 million of them without the task set's evaluations (the
  // message size tells the iterations apart, so each is walked).
  o.simulationBudget = 1'000'000;
  EXPECT_FALSE(check(src, o).simulated);
  o.simulationBudget = 5'000'000;
  EXPECT_TRUE(check(src, o).simulated);
}

// A FOR EACH loop whose body tells its iterations apart only by comparing the loop variable with
// values fixed before the loop (a trace loop's first iteration with a time of its own) is walked
// once per run of alike iterations, its counts multiplied: a million iterations fit a budget of
// a thousand steps, and the traffic is the million iterations'.
TEST(Simulation, AForEachLoopIsWalkedOncePerRunOfIterationsItsTestsAnswerAlike) {
  const std::string src =
      "Require language version \"1.5\".\n"
      "FOR EACH i IN {0, ..., 999999} {\n"
      "  IF i = 0 THEN {\n"
      "    ALL TASKS COMPUTE FOR 5 MICROSECONDS\n"
      "  } OTHERWISE {\n"
      "    ALL TASKS COMPUTE FOR 1 MICROSECONDS\n"
      "  } THEN\n"
      "  TASKS t SUCH THAT t < 3 SEND A 4 BYTE MESSAGE TO UNSUSPECTING TASK t+1 THEN\n"
      "  TASKS t SUCH THAT t > 0 RECEIVE A 4 BYTE MESSAGE FROM TASK t-1 THEN\n"
      "  IF 999999 > i /\\ i > 0 THEN {\n"
      "    TASK 3 SENDS AN 8 BYTE MESSAGE TO UNSUSPECTING TASK 0 THEN\n"
      "    TASK 0 RECEIVES AN 8 BYTE MESSAGE FROM TASK 3\n"
      "  }\n"
      "}.\n";
  CheckOptions o;
  o.tasks = 4;
  o.simulationBudget = 1'000;
  const CheckResult r = check(src, o);
  ASSERT_TRUE(r.simulated) << errorsOf(r, src);
  EXPECT_EQ(errorsOf(r, src), "");
  EXPECT_FALSE(r.orderChecked);  // 7 million events: more than the order analysis keeps
  ASSERT_EQ(r.traffic.size(), 4u);
  EXPECT_EQ(r.traffic[0].sent, 1'000'000);
  EXPECT_EQ(r.traffic[3].sent, 999'998);
  EXPECT_EQ(r.traffic[0].received, 999'998);
  EXPECT_EQ(r.traffic[0].receivedBytes, 8 * 999'998);
  EXPECT_EQ(r.traffic[1].received, 1'000'000);
  // A loop that uses its variable otherwise is walked iteration by iteration: out of budget.
  const std::string perTask =
      "Require language version \"1.5\".\n"
      "FOR EACH i IN {0, ..., 999} {\n"
      "  TASK i MOD 3 SENDS A 4 BYTE MESSAGE TO UNSUSPECTING TASK 3 THEN\n"
      "  TASK 3 RECEIVES A 4 BYTE MESSAGE FROM TASK i MOD 3\n"
      "}.\n";
  EXPECT_FALSE(check(perTask, o).simulated);
  o.simulationBudget = 100'000;
  const CheckResult walked = check(perTask, o);
  ASSERT_TRUE(walked.simulated) << errorsOf(walked, perTask);
  EXPECT_TRUE(walked.orderChecked);
  EXPECT_EQ(walked.traffic[0].sent, 334);
  EXPECT_EQ(walked.traffic[2].sent, 333);
  EXPECT_EQ(walked.traffic[3].received, 1'000);
}

// A progression whose iteration count does not fit 64 bits (its span divided by a step of -1,
// or that plus one) is a loop no run can make: the simulation gives up on it, without
// overflowing (UBSan in the sanitized build checks that).
TEST(Simulation, AForEachLoopOfMoreThanInt64IterationsIsNotSimulated) {
  for (const char* range : {"{0, -1, ..., -9223372036854775807 - 1}", "{0, ..., 9223372036854775807}"}) {
    const std::string src = std::string("Require language version \"1.5\".\nFOR EACH i IN ") + range +
                            " {\n  IF i = 0 THEN ALL TASKS SYNCHRONIZE\n}.\n";
    CheckOptions o;
    o.tasks = 2;
    const CheckResult r = check(src, o);
    EXPECT_FALSE(r.simulated) << range << "\n" << errorsOf(r, src);
  }
}

// The runs a FOR EACH loop is walked in are repeated for the order of operations: a deadlock
// from the second iteration on (each task's blocking receive waits for a send that comes after
// the other's) is found within a budget far below the iterations' own steps.
TEST(Simulation, ADeadlockInsideARunOfIterationsIsFound) {
  const std::string src =
      "Require language version \"1.5\".\n"
      "FOR EACH i IN {0, ..., 99} {\n"
      "  ALL TASKS COMPUTE FOR 1 MICROSECONDS THEN\n"
      "  IF i > 0 THEN {\n"
      "    TASK 0 RECEIVES A 4 BYTE MESSAGE FROM TASK 1 THEN\n"
      "    TASK 1 RECEIVES A 4 BYTE MESSAGE FROM TASK 0 THEN\n"
      "    TASK 0 SENDS A 4 BYTE MESSAGE TO UNSUSPECTING TASK 1 THEN\n"
      "    TASK 1 SENDS A 4 BYTE MESSAGE TO UNSUSPECTING TASK 0\n"
      "  }\n"
      "}.\n";
  CheckOptions o;
  o.tasks = 2;
  o.simulationBudget = 1'000;  // 100 iterations walked one by one take more
  const CheckResult r = check(src, o);
  ASSERT_TRUE(r.simulated);
  EXPECT_TRUE(r.orderChecked);
  EXPECT_NE(errorsOf(r, src).find("blocks forever in this blocking receive"), std::string::npos)
      << errorsOf(r, src);
  // The same test written with arithmetic on the variable: walked per iteration, out of budget.
  std::string perIteration = src;
  perIteration.replace(perIteration.find("IF i > 0"), 8, "IF i MOD 1000 > 0");
  EXPECT_FALSE(check(perIteration, o).simulated);
}

// The order of operations is played up to a million communication events; beyond, the counts are
// still checked and the result says the order was not.
TEST(Simulation, TheOrderOfOperationsIsPlayedUpToAMillionEvents) {
  auto program = [](int reps) {
    return "Require language version \"1.5\".\n"
           "FOR " + std::to_string(reps) + " REPETITIONS {\n"
           "  TASK 0 SENDS A 4 BYTE MESSAGE TO UNSUSPECTING TASK 1 THEN\n"
           "  TASK 1 RECEIVES A 4 BYTE MESSAGE FROM TASK 0\n"
           "}.\n";
  };
  CheckOptions o;
  o.tasks = 2;
  const CheckResult within = check(program(400'000), o);  // a send and a receive each
  ASSERT_TRUE(within.simulated);
  EXPECT_TRUE(within.orderChecked);
  const CheckResult beyond = check(program(600'000), o);
  ASSERT_TRUE(beyond.simulated);
  EXPECT_FALSE(beyond.orderChecked);
  EXPECT_EQ(beyond.traffic[1].received, 600'000);
}

}  // namespace
}  // namespace tracegen::ncptl
