#include "clioutput.h"

#include "cliinterrupt.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>

namespace mms::cli {

void writeFile(const std::string& path, const std::string& text)
{
    std::error_code st;
    if (auto s = std::filesystem::status(path, st); !st && std::filesystem::exists(s) && !std::filesystem::is_regular_file(s)) {
        std::ofstream f(path, std::ios::binary);
        if (!f)
            throw BadInput(path + ": cannot write (" + std::string(std::strerror(errno)) + ")");
        if (!(f << text).flush())
            throw BadInput(path + ": write failed (" + std::string(std::strerror(errno)) + ")");
        return;
    }
    std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary);
        if (!f)
            throw BadInput(path + ": cannot write (" + std::string(std::strerror(errno)) + ")");
        f << text;
        if (!f.flush())
            throw BadInput(path + ": write failed (" + std::string(std::strerror(errno)) + ")");
    }
    std::error_code ec;
    if (interrupted()) {
        std::filesystem::remove(tmp, ec);
        throw Interrupted();
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw BadInput(path + ": cannot write (" + ec.message() + ")");
    }
}

void emit(const RunArgs& r, const std::string& text, std::ostream& out)
{
    if (r.out.empty())
        out << text;
    else
        writeFile(r.out, text);
}

} // namespace mms::cli
