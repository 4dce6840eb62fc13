#include "app/output.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

namespace mechint::app {
namespace {

void write_row(std::ostream& os, const std::vector<double>& row) {
  char buffer[32];
  for (std::size_t i = 0; i < row.size(); ++i) {
    std::snprintf(buffer, sizeof buffer, "%.17g", row[i]);
    os << (i ? "," : "") << buffer;
  }
  os << '\n';
}

void write_header(std::ostream& os, const std::vector<std::string>& header) {
  for (std::size_t i = 0; i < header.size(); ++i) os << (i ? "," : "") << header[i];
  os << '\n';
}

}  // namespace

void write_csv_atomically(const std::string& path, const std::vector<std::string>& header,
                          const std::function<void(const RowSink&)>& produce) {
  if (path.empty()) {
    write_header(std::cout, header);
    produce([](const std::vector<double>& row) { write_row(std::cout, row); });
    std::cout.flush();
    return;
  }
  const std::filesystem::path target(path);
  if (target.has_parent_path() && !std::filesystem::is_directory(target.parent_path()))
    throw std::invalid_argument("output directory '" + target.parent_path().string() + "' does not exist");
  const std::filesystem::path partial = target.string() + ".partial";
  try {
    std::ofstream os(partial);
    if (!os) throw std::invalid_argument("cannot write '" + partial.string() + "'");
    write_header(os, header);
    produce([&](const std::vector<double>& row) { write_row(os, row); });
    os.close();
    if (!os) throw std::runtime_error("error while writing '" + partial.string() + "'");
    std::filesystem::rename(partial, target);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    throw;
  }
}

void write_text_atomically(const std::string& path, const std::string& text) {
  const std::filesystem::path target(path), partial = path + ".partial";
  {
    std::ofstream os(partial);
    if (!os) throw std::runtime_error("cannot write '" + partial.string() + "'");
    os << text;
    if (!os) throw std::runtime_error("error while writing '" + partial.string() + "'");
  }
  std::filesystem::rename(partial, target);
}

}  // namespace mechint::app
