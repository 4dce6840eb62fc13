// libFuzzer target over the journal of a sweep (app/sweep_journal.cpp: SweepJournal, docs/sweeps.md
// "Interrupted sweeps"). See docs/fuzzing.md.
//
// Input: the bytes of DIR/journal.csv of a fixed sweep of 6 members and 5 summary columns
// (member, x, q_final, status, exit), member m's varied value x the m-th of kValues (one a quoted
// cell with a comma). Each input is read twice: as it is, and repaired — its first line made this
// sweep's and every line's digest recomputed — since a mutation almost never keeps a digest right,
// and without the repair the checks behind it would never be reached.
//
// Finding: a crash, a hang, a sanitizer report, an exception other than mechint::InvalidInput or
// mechint::IoError, a refusal that is not one printable line naming the journal, a file descriptor
// left open, or an accepted journal that breaks what the sweep relies on (__builtin_trap): the
// file left holding exactly the whole lines it held (a torn last line dropped) or, empty, this
// sweep's first line; every entry a row of its member beginning with the member's own inputs, of 5
// well-formed cells, whose journal line reads back as the same member and entry; an entry
// appended and the journal opened again read back as it was written.
#include <dirent.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/sweep_csv.hpp"
#include "app/sweep_digest.hpp"
#include "app/sweep_journal.hpp"
#include "fuzz_checks.hpp"
#include "mechint/core/errors.hpp"

namespace {

using namespace mechint::app;

const std::vector<std::string> kValues = {"0.5", "1", "-2", "\"a,b\"", "1e-300", "7"};

JournalBinding binding() {
  JournalBinding b;
  b.sweep = sweep_digest("the fuzzed sweep");
  b.members = kValues.size();
  b.columns = 5;
  b.inputs = [](std::size_t m) { return std::to_string(m) + "," + kValues.at(m); };
  return b;
}

int open_descriptors() {
  int n = 0;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (::readdir(d) != nullptr) ++n;
    ::closedir(d);
  }
  return n;
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void check_refusal(std::string_view message) {
  FUZZ_CHECK(mechint::fuzz::printable(message));
  FUZZ_CHECK(message.size() <= 2000);
  FUZZ_CHECK(message.find("journal") != std::string_view::npos);
}

/// The input with its first line made this sweep's and every later line's digest recomputed.
std::string repaired(std::string_view input, const JournalBinding& b) {
  std::string out;
  std::size_t begin = 0, line_number = 0;
  while (begin < input.size()) {
    const std::size_t end = input.find('\n', begin);
    std::string line(input.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
    const bool whole = end != std::string_view::npos;
    begin = whole ? end + 1 : input.size();
    if (++line_number == 1) {
      line = journal_header(b);
    } else {
      const std::size_t last = line.rfind(',');
      const std::size_t before = last == std::string::npos || last == 0 ? std::string::npos : line.rfind(',', last - 1);
      if (before != std::string::npos)
        line = journal_line(b, {line.substr(0, before), line.substr(before + 1, last - before - 1)});
    }
    out += line;
    if (whole) out += '\n';
  }
  return out;
}

void read_journal(const std::string& path, std::string_view input) {
  const JournalBinding b = binding();
  mechint::fuzz::write_file(path, input);
  const int descriptors = open_descriptors();
  std::optional<std::vector<std::optional<JournalEntry>>> read;
  mechint::fuzz::expect_only_refusals(
      [&] {
        SweepJournal journal(path, b);
        read = journal.entries();
      },
      check_refusal);
  FUZZ_CHECK(open_descriptors() == descriptors);
  if (!read) return;
  // The file: the whole lines it held, or this sweep's first line.
  const std::size_t whole = input.rfind('\n') == std::string_view::npos ? 0 : input.rfind('\n') + 1;
  const std::string after = bytes_of(path);
  FUZZ_CHECK(whole == 0 ? after == journal_header(b) + "\n" : after == input.substr(0, whole));
  FUZZ_CHECK(read->size() == b.members);
  for (std::size_t m = 0; m < read->size(); ++m) {
    const auto& entry = (*read)[m];
    if (!entry) continue;
    const std::string inputs = b.inputs(m) + ",";
    FUZZ_CHECK(entry->row.compare(0, inputs.size(), inputs) == 0);
    const auto cells = strict_csv_cells(entry->row);
    FUZZ_CHECK(cells && cells->size() == b.columns);
    const ReadLine again = read_journal_line(b, journal_line(b, *entry));
    FUZZ_CHECK(again.refusal.empty() && again.member == m && again.entry.row == entry->row &&
               again.entry.trajectory == entry->trajectory);
  }
  // An entry appended (member 3's, with its quoted input) is read back, superseding any earlier one.
  const JournalEntry added{"3,\"a,b\",0.25,\"ok, fine\",0", "none"};
  mechint::fuzz::expect_only_refusals(
      [&] {
        {
          SweepJournal journal(path, b);
          journal.append(added);
        }
        const SweepJournal journal(path, b);
        FUZZ_CHECK(journal.entries()[3] && journal.entries()[3]->row == added.row &&
                   journal.entries()[3]->trajectory == added.trajectory);
        for (std::size_t m = 0; m < b.members; ++m)
          if (m != 3) FUZZ_CHECK(journal.entries()[m].has_value() == (*read)[m].has_value());
      },
      [](std::string_view) { __builtin_trap(); });  // a journal just accepted and appended to is not refused
  FUZZ_CHECK(open_descriptors() == descriptors);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = mechint::fuzz::private_path("journal.csv");
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  read_journal(path, input);
  read_journal(path, repaired(input, binding()));
  return 0;
}
