#pragma once
// Golden files (tests/data/golden/NAME): `actual` must equal the file byte for byte. On a mismatch the test writes
// NAME.actual beside it and fails with the diff command; MMSCOPE_UPDATE_GOLDEN=1 rewrites the golden file instead.

#include <QtTest>

#include <fstream>
#include <sstream>
#include <string>

namespace mms::test {

inline void compareGolden(const std::string& name, const std::string& actual)
{
    std::string path = std::string(MMSCOPE_TEST_DATA) + "/golden/" + name;
    if (qEnvironmentVariableIsSet("MMSCOPE_UPDATE_GOLDEN")) {
        std::ofstream(path, std::ios::binary) << actual;
        return;
    }
    std::ifstream in(path, std::ios::binary);
    std::stringstream expected;
    expected << in.rdbuf();
    if (expected.str() != actual) {
        std::ofstream(path + ".actual", std::ios::binary) << actual;
        QFAIL(qPrintable(QString::fromStdString("golden mismatch: diff -u " + path + " " + path + ".actual")));
    }
}

} // namespace mms::test
