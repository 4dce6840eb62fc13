// The journal of a sweep read back (app/sweep_journal.hpp, docs/sweeps.md "Interrupted sweeps"):
// bound to its sweep by the digest on its first line and on every row, each row beginning with its
// member's own inputs. A journal or a row of another sweep, an edited row, a line cut in the middle
// or with the wrong number of fields is refused with one line naming the line (InvalidInput, exit
// 2); only a last line without its newline (a stop in the middle of an append) is dropped. The
// command line's cases are tests/test_sweep_trust_cli.cpp's.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "app/sweep_csv.hpp"
#include "app/sweep_digest.hpp"
#include "app/sweep_journal.hpp"
#include "mechint/core/errors.hpp"

namespace mechint::app {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kValues = {"0.5", "1", "\"a,b\""};

JournalBinding binding(const std::string& sweep = "sweep t_end = 1") {
  JournalBinding b;
  b.sweep = sweep_digest(sweep);
  b.members = kValues.size();
  b.columns = 5;  // member, x, q_final, status, exit
  b.inputs = [](std::size_t m) { return std::to_string(m) + "," + kValues.at(m); };
  return b;
}

class Journal : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mechint_sweep_journal_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "journal.csv").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string text() const {
    std::ifstream in(path_, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  void write(const std::string& text) const { std::ofstream(path_, std::ios::binary | std::ios::trunc) << text; }

  /// The message of the refusal of opening the journal (none: accepted).
  std::string refusal(const JournalBinding& b) const {
    try {
      SweepJournal journal(path_, b);
      return "";
    } catch (const InvalidInput& e) {
      return e.what();
    }
  }

  fs::path dir_;
  std::string path_;
};

const JournalEntry kRow0{"0,0.5,0.25,ok,0", "-"};
const JournalEntry kRow1{"1,1,,\"Newton did not converge, at t = 0.5\",3", "-"};
const JournalEntry kRow2{"2,\"a,b\",0.75,ok,0", "120:" + sweep_digest("member 2's file")};

TEST_F(Journal, WrittenRowsReadBackBoundToTheirSweep) {
  {
    SweepJournal journal(path_, binding());
    for (const auto* e : {&kRow0, &kRow1, &kRow2}) journal.append(*e);
    journal.sync();
  }
  EXPECT_EQ(text().substr(0, text().find('\n')), "mechint sweep journal " + sweep_digest("sweep t_end = 1"));
  const SweepJournal journal(path_, binding());
  ASSERT_TRUE(journal.entries()[0] && journal.entries()[1] && journal.entries()[2]);
  EXPECT_EQ(journal.entries()[1]->row, kRow1.row);
  EXPECT_EQ(journal.entries()[2]->row, kRow2.row);
  EXPECT_EQ(journal.entries()[2]->trajectory, kRow2.trajectory);
}

TEST_F(Journal, AJournalOfAnotherSweepIsRefusedWholly) {
  {
    SweepJournal other(path_, binding("sweep t_end = 2"));
    other.append(kRow0);
  }
  const std::string before = text();
  const std::string why = refusal(binding());
  EXPECT_NE(why.find("belongs to another sweep"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos);
  EXPECT_EQ(text(), before);  // refused, not rewritten
}

TEST_F(Journal, RowsOfAnotherSweepAmongThisOnesAreRefusedByLine) {
  std::string foreign;
  {
    SweepJournal other(path_, binding("sweep t_end = 2"));
    other.append(kRow1);
  }
  foreign = text().substr(text().find('\n') + 1);
  fs::remove(path_);
  {
    SweepJournal journal(path_, binding());
    journal.append(kRow0);
  }
  std::ofstream(path_, std::ios::app) << foreign;  // a row of the same member and values, another sweep's
  const std::string why = refusal(binding());
  EXPECT_NE(why.find("damaged at line 3"), std::string::npos) << why;
  EXPECT_NE(why.find("not one this sweep wrote"), std::string::npos) << why;
}

TEST_F(Journal, ARowWhoseVariedValueIsNotItsMembersIsRefused) {
  const JournalBinding b = binding();
  write(journal_header(b) + "\n" + journal_line(b, {"0,1,0.25,ok,0", "-"}) + "\n");  // member 0's x is 0.5
  const std::string why = refusal(b);
  EXPECT_NE(why.find("damaged at line 2"), std::string::npos) << why;
  EXPECT_NE(why.find("values are not this sweep's"), std::string::npos) << why;
  // An edited result, its digest not recomputed: refused too.
  std::string edited = journal_line(b, kRow0);
  edited.replace(edited.find("0.25"), 4, "0.35");
  write(journal_header(b) + "\n" + edited + "\n");
  EXPECT_NE(refusal(b).find("not one this sweep wrote"), std::string::npos) << refusal(b);
}

TEST_F(Journal, ALineCutInTheMiddleIsDamagedButATornLastLineIsDropped) {
  const JournalBinding b = binding();
  const std::string line0 = journal_line(b, kRow0), line1 = journal_line(b, kRow1);
  // Cut, then the next row on a line of its own: damaged, whichever fields are left.
  for (const std::size_t cut : {std::size_t{3}, std::size_t{9}, line0.size() - 1}) {
    write(journal_header(b) + "\n" + line0.substr(0, cut) + "\n" + line1 + "\n");
    const std::string why = refusal(b);
    EXPECT_NE(why.find("damaged at line 2"), std::string::npos) << cut << ": " << why;
  }
  // The wrong number of fields: a cell more.
  write(journal_header(b) + "\n" + journal_line(b, {"0,0.5,0.25,9,ok,0", "-"}) + "\n");
  EXPECT_NE(refusal(b).find("6 cells where the summary has 5"), std::string::npos) << refusal(b);
  // The last line without its newline: what a kill in the middle of an append leaves.
  write(journal_header(b) + "\n" + line0 + "\n" + line1.substr(0, 12));
  {
    const SweepJournal journal(path_, b);
    EXPECT_TRUE(journal.entries()[0].has_value());
    EXPECT_FALSE(journal.entries()[1].has_value());
  }
  EXPECT_EQ(text(), journal_header(b) + "\n" + line0 + "\n");
}

TEST_F(Journal, AMemberJournaledAgainIsTakenFromItsLastRow) {
  const JournalBinding b = binding();
  const JournalEntry again{"0,0.5,0.5,ok,0", "-"};
  {
    SweepJournal journal(path_, b);
    journal.append(kRow0);
    journal.append(again);
  }
  const SweepJournal journal(path_, b);
  EXPECT_EQ(journal.entries()[0]->row, again.row);
}

TEST_F(Journal, AFirstLineThatIsNoJournalsIsDamage) {
  write("0,0.5,0.25,ok,0\n");  // a journal without its first line (an earlier format)
  EXPECT_NE(refusal(binding()).find("damaged at line 1"), std::string::npos) << refusal(binding());
}

TEST(SweepCsv, StrictCellsRefuseWhatIsNotOneRow) {
  EXPECT_EQ(*strict_csv_cells("0,\"a,b\",\"say \"\"x\"\"\",,3"),
            (std::vector<std::string>{"0", "a,b", "say \"x\"", "", "3"}));
  EXPECT_FALSE(strict_csv_cells("0,\"open"));
  EXPECT_FALSE(strict_csv_cells("0,a\"b"));
  EXPECT_FALSE(strict_csv_cells("0,\"a\"b"));
}

}  // namespace
}  // namespace mechint::app
