#pragma once
// What the view suites play and how they compare pixels: madv-free-swapin's runs at scale 0.01, migration-unmapped's
// baseline at 0.05 (120 CPUs, a 3 ms run), lru-file-readtwice on two sockets (two NUMA nodes) at 0.01, and the
// distance between two colours.

#include "../recorded.h"
#include "run/recording.h"
#include "run/run.h"

#include <QColor>

#include <cstdlib>
#include <memory>
#include <string>

namespace mms::test {

inline RunResult madvfreeRun(const std::string& variant) { return recordedRun("madv-free-swapin", variant, 0.01); }
inline std::shared_ptr<const Recording> madvfreeRecording(const std::string& variant) { return madvfreeRun(variant).recording; }

inline std::shared_ptr<const Recording> migrationRecording()
{
    return recordedRun("migration-unmapped", "baseline", 0.05).recording;
}

inline std::shared_ptr<const Recording> twoNodeRecording()
{
    return recordedRun("lru-file-readtwice", "mainline", 0.01, RecordingOptions {}.memoryBudget,
        { { "machine.sockets", "2" }, { "machine.numa", "true" } })
        .recording;
}

// The sum of the channels' differences: 0 for the same colour, up to 765.
inline int colourDistance(QRgb a, QRgb b)
{
    return std::abs(qRed(a) - qRed(b)) + std::abs(qGreen(a) - qGreen(b)) + std::abs(qBlue(a) - qBlue(b));
}

} // namespace mms::test
