#pragma once
// The block devices a machine's swap can live on. A DeviceKind is the technology, with the properties the kernel
// reads from the device's request queue; a DeviceSpec is one device's timing. Requests pass one transfer stage
// (bandwidth, FIFO) and then a fixed latency (in parallel); at most queueDepth requests are outstanding, further
// submitters sleep (nr_requests throttling). The presets and their sources are listed in docs/presets.md.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mms {

enum class DeviceKind : std::uint8_t {
    Ssd2015, // a SATA SSD of 2014-2015
    Hdd2007, // a 7200 rpm desktop disk of 2006-2007
    PmemRam, // RAM-simulated persistent memory (the pmem driver over memmap= RAM)
    Nvme2020, // a data-centre NVMe SSD of 2018-2020
    Zram, // a compressed RAM disk (drivers/block/zram): no queue and no transfer; the CPU compresses into memory
};

struct DeviceKindInfo {
    DeviceKind kind;
    const char* name; // its name in a scenario (machine.swap[].device), in `show` and in results
    // The queue's rotational attribute (/sys/block/*/queue/rotational): QUEUE_FLAG_NONROT is clear. The drivers of
    // the others set it (sd_read_block_characteristics() for an SSD that reports no rotation rate, the NVMe and
    // pmem drivers always); swapon() marks a swap device on a non-rotational queue SWP_SOLIDSTATE
    // (mm/swapfile.c), which gives it per-CPU clusters from 3.14 (ebc2a1a69111).
    bool rotational;
    // The device has an rw_page operation that completes in the caller (bdev_write_page()/bdev_read_page(), 3.16+):
    // swap_writepage() and swap_readpage() do the work synchronously in the reclaiming or faulting task, as system
    // time, and never queue a request (block/zram_drv.h). False: requests go to the queue (block/blkdev.h).
    bool synchronous = false;
};

// Every kind, in the order of the enum (the order devicePresetNames() lists them in).
const std::vector<DeviceKindInfo>& deviceKinds();
const DeviceKindInfo& deviceKindInfo(DeviceKind kind);
std::optional<DeviceKind> deviceKindNamed(const std::string& name);

struct DeviceSpec {
    DeviceKind kind = DeviceKind::Ssd2015;
    double readLatencyNs = 0; // time from transfer end to completion for a read
    double writeLatencyNs = 0;
    double bandwidthMBps = 0; // transfer stage, MB/s (1e6 bytes)
    double requestOverheadNs = 0; // per-request command overhead in the transfer stage
    int queueDepth = 128; // nr_requests

    const char* name() const { return deviceKindInfo(kind).name; }
    bool rotational() const { return deviceKindInfo(kind).rotational; }
    bool synchronous() const { return deviceKindInfo(kind).synchronous; }
};

// The preset device of a kind, and of a kind named in a scenario (nullopt for a name that is no kind).
DeviceSpec deviceSpecFor(DeviceKind kind);
std::optional<DeviceSpec> devicePreset(const std::string& name);
std::vector<std::string> devicePresetNames();

} // namespace mms
