#pragma once
#include "workload/workload.h"

namespace mms {
// Seed 002: `dd if=sparse-file of=/dev/null bs=4k` and vm-scalability's lru-file-readonce / lru-file-readtwice / lru-file-mmap-read.
WorkloadKind ddKind();
WorkloadKind lruFileReadonceKind();
WorkloadKind lruFileReadtwiceKind();
WorkloadKind lruFileMmapReadKind();
}
