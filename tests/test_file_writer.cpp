// app/file_writer.hpp, the one way mechint writes a file, as a unit: the kinds of destination and
// what is left when a write fails; and the message quoting (mechint/core/format.hpp) that keeps
// readable UTF-8 and escapes what could break or disguise a line.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "app/file_writer.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace {

namespace fs = std::filesystem;
using mechint::app::FileWriter;
using mechint::app::WriteOptions;
using mechint::app::WritePath;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("mechint_file_writer_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t entries(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

const WriteOptions kOwned{WritePath::kOwned, false, "file"};

class FileWriterTest : public ::testing::Test {
 protected:
  void TearDown() override { fs::remove_all(fs::temp_directory_path() / ("mechint_file_writer_" + std::to_string(::getpid()))); }
};

TEST_F(FileWriterTest, ARegularFileAppearsOnlyAtTheCommit) {
  const fs::path dir = scratch("commit");
  const fs::path target = dir / "a.csv";
  std::ofstream(target) << "old\n";
  ::chmod(target.c_str(), 0640);
  {
    FileWriter writer(target.string());
    EXPECT_FALSE(writer.writes_through());
    writer.write("new\n");
    writer.flush();
    EXPECT_EQ(read(target), "old\n");  // the temporary is beside it until the commit
    EXPECT_EQ(entries(dir), 2u);
    writer.commit();
  }
  EXPECT_EQ(read(target), "new\n");
  EXPECT_EQ(entries(dir), 1u);
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);  // the replaced file's mode
}

TEST_F(FileWriterTest, WithoutACommitNothingIsLeftAndTheTargetIsUntouched) {
  const fs::path dir = scratch("abandon");
  const fs::path target = dir / "a.csv";
  std::ofstream(target) << "old\n";
  {
    FileWriter writer(target.string());
    writer.write(std::string(200000, 'x'));  // more than the buffer: the temporary holds bytes
  }
  EXPECT_EQ(read(target), "old\n");
  EXPECT_EQ(entries(dir), 1u);
}

TEST_F(FileWriterTest, AFullDiskIsAnIoErrorWithNothingLeft) {
  // RLIMIT_FSIZE stands for a full disk: a write beyond it fails with EFBIG (SIGXFSZ ignored).
  const fs::path dir = scratch("full");
  const fs::path target = dir / "a.csv";
  std::ofstream(target) << "old\n";
  struct rlimit saved {};
  ::getrlimit(RLIMIT_FSIZE, &saved);
  const auto previous = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  bool failed = false;
  try {
    FileWriter writer(target.string());
    writer.write(std::string(1 << 20, 'x'));
    writer.commit();
  } catch (const mechint::IoError& e) {
    failed = true;
    EXPECT_NE(std::string(e.what()).find("a.csv"), std::string::npos) << e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous);
  EXPECT_TRUE(failed);
  EXPECT_EQ(read(target), "old\n");
  EXPECT_EQ(entries(dir), 1u);
}

TEST_F(FileWriterTest, AUserNamedLinkIsFollowedAnOwnedNameIsNever) {
  const fs::path dir = scratch("links");
  std::ofstream(dir / "target.csv") << "old\n";
  fs::create_symlink("target.csv", dir / "link.csv");
  mechint::app::write_file((dir / "link.csv").string(), "through\n");
  EXPECT_TRUE(fs::is_symlink(dir / "link.csv"));
  EXPECT_EQ(read(dir / "target.csv"), "through\n");
  // A file of mechint's own (a results directory's) whose name is a link: refused, not followed.
  EXPECT_THROW(mechint::app::write_file((dir / "link.csv").string(), "owned\n", kOwned), mechint::IoError);
  EXPECT_EQ(read(dir / "target.csv"), "through\n");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  EXPECT_THROW(mechint::app::write_text_atomically((dir / "fifo").string(), "owned\n"), mechint::IoError);
  EXPECT_TRUE(fs::is_fifo(dir / "fifo"));
  mechint::app::write_text_atomically((dir / "mine.csv").string(), "owned\n", /*durable=*/true);
  EXPECT_EQ(read(dir / "mine.csv"), "owned\n");
  EXPECT_EQ(entries(dir), 4u);
}

TEST_F(FileWriterTest, PathsThatCannotBeWrittenAreRefusedBeforeAnyWork) {
  const fs::path dir = scratch("refused");
  EXPECT_THROW(mechint::app::check_output_path("--out", dir.string()), mechint::InvalidInput);
  EXPECT_THROW(mechint::app::check_output_path("--out", (dir / "missing" / "a.html").string()), mechint::InvalidInput);
  EXPECT_NO_THROW(mechint::app::check_output_path("--out", "-"));
  EXPECT_NO_THROW(mechint::app::check_output_path("--out", (dir / "new.html").string()));
  fs::create_symlink("loop", dir / "loop");
  EXPECT_THROW(mechint::app::check_output_path("--out", (dir / "loop").string()), mechint::InvalidInput);
  EXPECT_TRUE(mechint::app::written_through("-"));
  EXPECT_FALSE(mechint::app::written_through((dir / "new.html").string()));
}

TEST(MessageQuoting, ReadableUtf8IsKeptWhatCouldDisguiseALineIsEscaped) {
  using mechint::printable_line;
  using mechint::quote_for_message;
  EXPECT_EQ(printable_line("Dg(q0) q\xcc\x87" "0 = 0.5"), "Dg(q0) q\xcc\x87" "0 = 0.5");  // q̇: q + U+0307
  EXPECT_EQ(quote_for_message("\xce\xb8.csv"), "'\xce\xb8.csv'");                          // θ
  EXPECT_EQ(quote_for_message("a\xf0\x9f\x98\x80"), "'a\xf0\x9f\x98\x80'");               // 4 bytes
  // Malformed, overlong, surrogate, C1 control, bidirectional override, line separator, BOM.
  EXPECT_EQ(quote_for_message("\xc3\x28"), "'\\xc3('");
  EXPECT_EQ(quote_for_message("\xc0\xaf"), "'\\xc0\\xaf'");
  EXPECT_EQ(quote_for_message("\xe0\x80\xaf"), "'\\xe0\\x80\\xaf'");
  EXPECT_EQ(quote_for_message("\xed\xa0\x80"), "'\\xed\\xa0\\x80'");
  EXPECT_EQ(quote_for_message("\xc2\x9b"), "'\\xc2\\x9b'");
  EXPECT_EQ(quote_for_message("\xe2\x80\xae" "txt"), "'\\xe2\\x80\\xaetxt'");
  EXPECT_EQ(quote_for_message("\xe2\x80\xa8"), "'\\xe2\\x80\\xa8'");
  EXPECT_EQ(quote_for_message("\xef\xbb\xbf"), "'\\xef\\xbb\\xbf'");
  EXPECT_EQ(quote_for_message("\xf4\x90\x80\x80"), "'\\xf4\\x90\\x80\\x80'");  // beyond U+10FFFF
  EXPECT_EQ(quote_for_message("\xce"), "'\\xce'");                              // cut short
  // The length limit counts characters, not bytes.
  EXPECT_EQ(quote_for_message("\xce\xb8\xce\xb8\xce\xb8", 2), "'\xce\xb8\xce\xb8...' (6 bytes)");
}

}  // namespace
