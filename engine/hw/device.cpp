#include "hw/device.h"

#include <cassert>

namespace mms {

const std::vector<DeviceKindInfo>& deviceKinds()
{
    static const std::vector<DeviceKindInfo> kinds = {
        { DeviceKind::Ssd2015, "ssd-2015", false },
        { DeviceKind::Hdd2007, "hdd-2007", true },
        // pmem_fops has .rw_page = pmem_rw_page (drivers/nvdimm/pmem.c, from the driver's first release, 4.1): swap's
        // bdev_write_page() and bdev_read_page() copy the page in the caller, and bios (pmem_make_request) are for
        // the rest.
        { DeviceKind::PmemRam, "pmem-ram", false, true },
        { DeviceKind::Nvme2020, "nvme-2020", false },
        // create_device() (drivers/block/zram/zram_drv.c, 4.0): "zram devices sort of resembles non-rotational
        // disks", queue_flag_set_unlocked(QUEUE_FLAG_NONROT); zram_devops has .rw_page = zram_rw_page.
        { DeviceKind::Zram, "zram", false, true },
    };
    return kinds;
}

const DeviceKindInfo& deviceKindInfo(DeviceKind kind)
{
    const DeviceKindInfo& info = deviceKinds()[static_cast<std::size_t>(kind)];
    assert(info.kind == kind && "deviceKinds() lists the kinds in the order of the enum");
    return info;
}

std::optional<DeviceKind> deviceKindNamed(const std::string& name)
{
    for (const DeviceKindInfo& info : deviceKinds())
        if (name == info.name)
            return info.kind;
    return std::nullopt;
}

DeviceSpec deviceSpecFor(DeviceKind kind)
{
    switch (kind) {
    case DeviceKind::Ssd2015:
        // SATA SSD of 2014-2015, Samsung 850 PRO datasheet: 550/520 MB/s sequential read/write, 4 KiB random
        // read 10k IOPS at QD1 (100 us, so ~90 us after the 8 us transfer) and 100k IOPS at QD32 (10 us per request
        // in the transfer stage: 8 us transfer + 2 us command overhead); random write 36k IOPS at QD1 (28 us, ~20 us
        // after the transfer). The transfer stage runs at the write figure, swap being mostly written. 128 requests:
        // BLKDEV_MAX_RQ, the default nr_requests (include/linux/blkdev.h).
        return { kind, 90'000, 20'000, 520, 2'000, 128 };
    case DeviceKind::Hdd2007:
        // 7200 rpm desktop disk of 2006-2007: ~8.9 ms average read seek (typical desktop datasheets of the time, e.g.
        // WD Caviar SE16) plus 4.2 ms average rotational latency (half a turn at 7200 rpm) per random request,
        // ~75 MB/s sustained transfer. 50 us a request in the transfer stage: GUESS for a SATA command round of the
        // time (command FIS, DMA set-up, the completion interrupt), tens of microseconds, and negligible beside the
        // 13.1 ms of positioning. 128 requests: BLKDEV_MAX_RQ.
        return { kind, 13'100'000, 13'100'000, 75, 50'000, 128 };
    case DeviceKind::PmemRam:
        // RAM-simulated persistent memory on the Xeon E5 v3 box (seed 003's swap): pmem_do_bvec copies 4 KiB with
        // the CPU, ~0.4 us at one core's ~10 GB/s, plus the block layer: ~1 us per request (GUESS of 1-3 us,
        // docs/presets.md). The transfer stage is one socket's memory: 4 channels of DDR4-1866, 59.7 GB/s peak
        // (Intel ARK), of which a STREAM-like ~75% is reachable, ~45 GB/s. Bios go to pmem_make_request(), with
        // no nr_requests of its own: a queue of 1024, GUESS (the nvme-2020 preset's depth: a bio-based driver
        // throttles nothing). 300 ns a request in the transfer stage: GUESS for submit_bio() to bio_endio() around
        // the copy, a few hundred ns of CPU. Swap does not queue: it writes and reads through pmem_rw_page() in the
        // task (mm/page_io.cpp), the copy on the memory-bandwidth model and, for the driver around it (the
        // rw_page call chain, pmem_do_bvec()'s bad-block check, wmb_pmem()), the same 300 ns GUESS.
        return { kind, 1'000, 1'000, 45'000, 300, 1024 };
    case DeviceKind::Nvme2020:
        // Data-centre NVMe of 2018-2020, Intel SSD DC P4510 datasheet: 3200/2000 MB/s sequential read/write,
        // typical latency 77 us read, 18 us write (QD1, 4 KiB). 1 us a request in the transfer stage: GUESS for the
        // submission doorbell and the completion entry; with the 2 us transfer a 4 KiB request holds the stage ~3 us
        // (~330k IOPS), below the datasheet's ~640k random-read IOPS at depth and above its random-write figure.
        // 1024 requests: the NVMe driver's io_queue_depth (drivers/nvme/host/pci.c).
        return { kind, 77'000, 18'000, 2'000, 1'000, 1024 };
    case DeviceKind::Zram:
        // No timing of its own: zram_rw_page() runs in the caller, and what it costs is CPU work and memory traffic of
        // the machine (block/zcomp.cpp, docs/presets.md "zram"). The request queue is never used (depth 1 so that
        // nothing divides by zero); zram_make_request() is bio-based and has no nr_requests.
        return { kind, 0, 0, 0, 0, 1 };
    }
    assert(false && "a DeviceKind without a preset");
    return { kind };
}

std::optional<DeviceSpec> devicePreset(const std::string& name)
{
    if (auto kind = deviceKindNamed(name))
        return deviceSpecFor(*kind);
    return std::nullopt;
}

std::vector<std::string> devicePresetNames()
{
    std::vector<std::string> names;
    for (const DeviceKindInfo& info : deviceKinds())
        names.emplace_back(info.name);
    return names;
}

} // namespace mms
