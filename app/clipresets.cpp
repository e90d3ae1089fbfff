// mmscope-cli presets: the machines a scenario's machine.preset names and the devices machine.swap[].device does,
// with what each is (docs/presets.md has every figure and its source).
#include "clicommand.h"

#include "hw/device.h"
#include "hw/machine.h"
#include "scenario/size.h"

#include <cstdio>
#include <ostream>
#include <string>

namespace mms::cli {

namespace {
    void listPresets(std::ostream& out)
    {
        out << "machine presets (machine.preset; --set machine.cpus, sockets, cores_per_llc, numa, memory and swap "
               "change them):\n";
        for (const std::string& name : machinePresetNames()) {
            const MachineSpec m = *machinePreset(name);
            std::string swap;
            for (const SwapSpec& s : m.swap)
                swap += (swap.empty() ? "" : ", ") + formatSize(s.sizeBytes) + " " + s.device.name();
            // Where a socket has several last-level caches, how many cores share each.
            const std::string caches = m.llcsPerSocket() > 1
                ? ", " + std::to_string(m.coresPerLlc) + (m.coresPerLlc == 1 ? " core" : " cores") + " a cache"
                : "";
            char line[240];
            std::snprintf(line, sizeof line,
                "  %-26s %d CPUs in %d socket%s (%d thread%s a core%s), %s, %s memory, %.1f GB/s a socket",
                name.c_str(), m.cpus, m.sockets, m.sockets == 1 ? "" : "s", m.threadsPerCore,
                m.threadsPerCore == 1 ? "" : "s", caches.c_str(), m.numa ? "a node a socket" : "one interleaved node",
                formatSize(m.memoryBytes).c_str(), m.socketMemGBps);
            out << line << (swap.empty() ? ", no swap" : ", swap " + swap) << "\n      " << m.description << "\n";
        }
        out << "swap devices (machine.swap[].device):\n";
        for (const std::string& name : devicePresetNames()) {
            const DeviceSpec d = *devicePreset(name);
            char line[200];
            if (d.kind == DeviceKind::Zram)
                std::snprintf(line, sizeof line, "  %-26s in RAM, compressed by the task that swaps (no queue)",
                    name.c_str());
            else if (d.synchronous())
                std::snprintf(line, sizeof line,
                    "  %-26s in RAM, copied by the task that swaps (rw_page; bios: %.0f MB/s, %d requests queued)",
                    name.c_str(), d.bandwidthMBps, d.queueDepth);
            else
                std::snprintf(line, sizeof line,
                    "  %-26s %.0f MB/s, %.0f us a read and %.0f us a write after the transfer, %d requests queued%s",
                    name.c_str(), d.bandwidthMBps, d.readLatencyNs / 1e3, d.writeLatencyNs / 1e3, d.queueDepth,
                    d.rotational() ? ", rotational" : "");
            out << line << "\n";
        }
        out << "docs/presets.md has every figure and its source\n";
    }
} // namespace

void addPresetsCommand(CommandLine& cl)
{
    Command& c = cl.add("presets", "", "the machines and swap devices a scenario may name",
        "Print the machine presets a scenario's machine.preset names (CPUs, sockets, SMT, nodes, memory, memory "
        "bandwidth, default swap, the processor) and the swap devices machine.swap[].device names.");
    c.run = [](std::ostream& out, std::ostream&) {
        listPresets(out);
        return 0;
    };
}

} // namespace mms::cli
