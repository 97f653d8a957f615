// app/backstop.h: the guard that answers for verify when its run is still going after the time limit. The tests
// wait on events, never on the clock's readings.
#include <gtest/gtest.h>

#include <chrono>
#include <future>

#include "backstop.h"

namespace reluopt::cli {
namespace {

// A command that claims the output before the backstop's time keeps it: the backstop never answers.
TEST(Backstop, ClaimedInTimeNeverAnswers) {
  bool answered = false;
  {
    Backstop backstop(Backstop::Clock::now() + std::chrono::hours(1), [&answered] { answered = true; });
    backstop.claim();
  }  // the destructor joins the watcher, which has returned without answering
  EXPECT_FALSE(answered);
}

// Once its time has passed, the backstop answers (in the command, `answer` ends the process; here it returns).
TEST(Backstop, AnswersOnceItsTimeHasPassed) {
  std::promise<void> answered;
  std::future<void> done = answered.get_future();
  Backstop backstop(Backstop::Clock::now(), [&answered] { answered.set_value(); });
  done.wait();
  SUCCEED();
}

}  // namespace
}  // namespace reluopt::cli
