#include "kernel/kernel.h"

#include "fs/fs.h"
#include "kernel/process.h"

namespace mms {

Kernel::Kernel(Sched& sched, const Toggles& toggles, std::uint64_t reservedPages)
    : Mm(sched, toggles, reservedPages)
{
}

Kernel::~Kernel() = default;

Vfs& Kernel::vfs()
{
    if (!m_vfs) // the ramdisk's mapping: metadata and journal blocks by block number
        m_vfs = std::make_unique<Vfs>(new_address_space(*this, std::uint64_t(1) << 20));
    return *m_vfs;
}

LockStats Kernel::lockStats() const
{
    LockStats v;
    Mm::lockStats(v);
    dirs.lockStats(v);
    if (m_vfs)
        m_vfs->lockStats(v);
    return v;
}

} // namespace mms
