#include "kernel/kernel.h"

#include "kernel/process.h"

namespace mms {

Kernel::Kernel(Sched& sched, const Toggles& toggles, std::uint64_t reservedPages)
    : Mm(sched, toggles, reservedPages)
{
}

Kernel::~Kernel() = default;

LockStats Kernel::lockStats() const
{
    LockStats v;
    Mm::lockStats(v);
    dirs.lockStats(v);
    return v;
}

} // namespace mms
