// fs/exec.c (3.x): do_execve -> bprm_mm_init (a new mm, its pgd), load_elf_binary -> flush_old_exec -> exec_mmap
// (the new mm installed, the old one dropped: mmput -> exit_mmap unlinks its file VMAs from their i_mmap trees), then
// the binary's and the interpreter's mappings (elf_map -> vm_mmap: vma_link under mmap_sem and the file's i_mmap
// lock; ld.so maps the libraries the same way), then the program's first touches of its text: page faults that map
// the pages they touch, so a shared library's hot text is mapped by every process and the rest of its page cache
// by none, though every process's VMA covers it.
#include "kernel/process.h"
#include "kernel/syscalls.h"
#include "mm/filemap.h"
#include "kernel/kernel.h"
#include "mm/memory.h"
#include "mm/rmap.h"

namespace mms {

Co<> do_execve(Kernel& k, Task& t, const sys::ExecImage& image)
{
    FnScope fn(t, "do_execve");
    Process& proc = current_process(k, t);
    Sched::burn(t, k.cost.faultEntryNs + 5 * k.cost.copyPageNs); // the syscall, copy_strings, load_elf_binary
    MmStruct& mm = k.mm_alloc(); // bprm_mm_init
    co_await pte_alloc_one(k, t, mm); // mm_init's pgd_alloc
    // exec_mmap(): the task switches to the new mm; the old one goes (no other user here: the child exec's its own).
    MmStruct* old = proc.mm;
    proc.mm = &mm;
    t.mm = &mm;
    if (old) { // the same process: its pid, parent and start go over to the new mm
        mm.pid = old->pid;
        mm.ppid = old->ppid;
        mm.forkedAt = old->forkedAt;
        mm.cpuAtFork = old->cpuAtFork;
    }
    if (old)
        co_await mmput(k, t, *old);
    // The mappings: vm_mmap() under the new mm's mmap_sem for write, vma_link into the file's i_mmap tree.
    for (const sys::ExecImage::Mapping& map : image.mappings) {
        co_await mm.mmap_sem.down_write(k.s, t);
        std::uint32_t start = k.do_mmap(mm, map.pages);
        Vma& v = mm.vmas.back();
        v.file = map.file.mapping();
        v.pgoff = map.pgoff;
        co_await vma_link_file_locked(k, t, *v.file, FileVma { &mm, start, map.pages, map.pgoff });
        co_await mm.mmap_sem.up_write(k.s, t);
    }
    // The program's first text touches. A touched page of a mapping whose PTE is none faults (handle_mm_fault ->
    // do_read_fault: the page mapped, with fault-around its cached neighbours too, and read in first if it is not
    // cached); a run outside every mapping reads around in the file only (filemap_fault's readaround: the pages come
    // into the page cache).
    {
        FnScope faults(t, "do_read_fault");
        for (int i = 0; i < kExecPageTables; ++i)
            if (!co_await pte_alloc_one(k, t, mm))
                break; // an OOM victim: it exits next
    }
    for (const sys::ExecImage::TextRun& run : image.text) {
        if (fatal_signal_pending(t))
            break;
        AddressSpace& m = *run.file.mapping();
        const Vma* hit = nullptr;
        for (const Vma& v : mm.vmas)
            if (v.file == &m && run.index >= v.pgoff && run.index < v.pgoff + v.pages) {
                hit = &v;
                break;
            }
        if (!hit) {
            for (int i = 0; i < image.readaround && run.index + static_cast<std::uint64_t>(i) < m.sizePages; ++i)
                co_await generic_file_buffered_read(k, t, m, run.index + static_cast<std::uint64_t>(i));
            continue;
        }
        // The run, clamped to the mapping it starts in (the loader's text VMA).
        const std::uint64_t end = std::min(run.index + run.pages, hit->pgoff + hit->pages);
        const auto first = static_cast<std::uint32_t>(hit->start + (run.index - hit->pgoff));
        const auto last = static_cast<std::uint32_t>(hit->start + (end - hit->pgoff));
        for (std::uint32_t vpn = first; vpn < last && !fatal_signal_pending(t); ++vpn)
            if (pte::none(mm.pte[vpn]))
                co_await handle_mm_fault(k, t, mm, vpn, false);
    }
}

} // namespace mms
