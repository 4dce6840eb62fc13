#include "experiments/megno_map.hpp"

#include <chrono>
#include <fstream>
#include <sstream>

#include "app/output.hpp"
#include "app/sweep.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::experiments {
namespace {

/// The cells of a summary row before its `status`: numbers and empty cells, never quoted, so a
/// plain split is exact there; the status (perhaps quoted, with commas) is what lies between them
/// and the last cell, `exit`.
struct SummaryRow {
  std::vector<std::string> leading;
  std::string status;
  int exit = 0;
};

SummaryRow split_row(const std::string& line, std::size_t leading_cells) {
  SummaryRow row;
  std::size_t start = 0;
  for (std::size_t i = 0; i < leading_cells; ++i) {
    const std::size_t comma = line.find(',', start);
    if (comma == std::string::npos) throw IoError("a short row in a sweep summary: " + quote_for_message(line, 200));
    row.leading.push_back(line.substr(start, comma - start));
    start = comma + 1;
  }
  const std::size_t last = line.rfind(',');
  if (last == std::string::npos || last < start) throw IoError("a short row in a sweep summary: " + quote_for_message(line, 200));
  row.status = line.substr(start, last - start);
  row.exit = std::stoi(line.substr(last + 1));
  return row;
}

double number(const std::string& cell) { return cell.empty() ? 0.0 : std::stod(cell); }

}  // namespace

MegnoMap run_megno_map(const std::string& name, const std::string& sweep_text, const std::filesystem::path& dir,
                       const std::string& u_name, const std::string& v_name, const std::vector<std::string>& extra) {
  namespace fs = std::filesystem;
  const fs::path file = dir / (name + ".toml"), out = dir / name;
  fs::create_directories(dir);
  app::write_text_atomically(file.string(), sweep_text);
  fs::remove_all(out);  // a sweep into a directory of an earlier run would only resume it

  std::ostringstream quiet;  // the sweep's "N members failed" line: the map counts them itself
  const auto t0 = std::chrono::steady_clock::now();
  app::sweep_command(file.string(), out.string(), 0, false, quiet);
  MegnoMap map;
  map.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::ifstream in(out / "summary.csv");
  std::string line;
  if (!std::getline(in, line)) throw IoError("cannot read " + quote_for_message((out / "summary.csv").string(), 200));
  std::vector<std::string> header;
  for (std::stringstream cells(line); std::getline(cells, line, ',');) header.push_back(line);
  const auto column = [&](const std::string& c) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == c) return i;
    throw IoError("the sweep summary of " + name + " has no column " + c);
  };
  const std::size_t u = column(u_name), v = column(v_name), megno = column("megno"), lyapunov = column("lyapunov"),
                    cpu = column("cpu_s"), status = column("status");
  std::vector<std::size_t> extra_columns;
  for (const std::string& c : extra) extra_columns.push_back(column(c));
  while (std::getline(in, line)) {
    const SummaryRow row = split_row(line, status);
    MapMember m;
    m.u = number(row.leading[u]);
    m.v = number(row.leading[v]);
    map.cpu_s += number(row.leading[cpu]);
    for (const std::size_t c : extra_columns) m.extra.push_back(number(row.leading[c]));
    if (row.exit == 0) {
      m.megno = number(row.leading[megno]);
      m.lyapunov = number(row.leading[lyapunov]);
    } else {
      // A derived value that is not finite is a start outside the energy surface (the sweep
      // refuses it before the member runs); any other failure happened on the way.
      m.kind = row.exit == 2 && row.status.find("[derived]") != std::string::npos ? MemberKind::kForbidden
                                                                                   : MemberKind::kFailed;
      if (m.kind == MemberKind::kFailed) m.status = row.status;
    }
    map.members.push_back(m);
  }
  return map;
}

}  // namespace mechint::experiments
