#include "hw/guest.h"

namespace mms {

const char* guestName(Guest g)
{
    switch (g) {
    case Guest::None: return "none";
    case Guest::Kvm: return "kvm";
    }
    return "none";
}

std::optional<Guest> guestFromName(const std::string& name)
{
    for (Guest g : { Guest::None, Guest::Kvm })
        if (name == guestName(g))
            return g;
    return std::nullopt;
}

std::vector<std::string> guestNames() { return { guestName(Guest::None), guestName(Guest::Kvm) }; }

CostModel guestCostModel(const CostModel& bare, Guest g)
{
    CostModel c = bare;
    if (g == Guest::None)
        return c;
    const double ghz = c.clockGHz;
    auto cycles = [ghz](double n) { return n / ghz; };
    // One VM exit and re-entry with a light handler: ~2000 cycles. SplitX (Landau, Ben-Yehuda, Gordon, WIOV'11;
    // Nehalem X5570, KVM 2.6.34, EPT+VPID): "the direct cost on its own is high: 2,000 cycles"; KVM commit
    // ad3610919e6f (Bonzini, 2016) saves "at least 20 cycles (1%) per vmexit", i.e. ~2000 cycles a round trip.
    // Plus the APIC emulation of an ICR or EOI write (kvm_lapic_reg_write, kvm_apic_send_ipi, the kick):
    // GUESS 500 cycles. 2500 cycles is 1.04 us at 2.4 GHz, within the 1-2 us per exit that KVM's own measurements
    // of the era give.
    c.vmExitNs = cycles(2500);
    c.ipiSendExits = 1; // the ICR write, once per target: physical destination mode, one write a CPU (med)
    c.ipiTakeExits = 2; // the kick out of guest mode (no posted interrupts), the trapped EOI (no APICv)
    c.ipiSendNs += (c.ipiSendExits + c.ipiTakeExits) * c.vmExitNs;
    c.ipiPerExtraTargetNs += c.ipiSendExits * c.vmExitNs;
    c.ipiHandleNs += c.ipiTakeExits * c.vmExitNs;
    // A fault's address missed the TLB, and so does the access retried after it: two walks, each up to 24 memory
    // references under EPT instead of 4 (4-level guest x 4-level EPT; Bhargava, Serebrin, Spadini, Manne,
    // "Accelerating Two-Dimensional Page Walks for Virtualized Systems", ASPLOS'08). The 20 extra references of a
    // walk mostly hit the paging-structure caches and L1/L2: GUESS 10 cycles each, 2 x 20 x 10 = 400 cycles.
    c.eptFaultWalkNs = cycles(400);
    // The walk that sets a PTE's accessed or dirty bit is two-dimensional too: its 20 extra references (Bhargava et
    // al., above) at the same GUESS of 10 cycles each.
    c.adBitWalkNs += cycles(20 * 10);
    // An idle vCPU has halted: waking a task there is the host's trip through its scheduler (try_to_wake_up of the
    // vCPU thread and the switch to it, at the processor's own wakeupNs and contextSwitchNs; "normally on the order
    // of a few micro-seconds", Documentation/virt/kvm/halt-polling.rst), then the VM entry that injects the
    // interrupt and the guest handler's trapped EOI. No halt polling (a module parameter from 4.0; the host's
    // setting is a GUESS).
    c.haltedVcpuWakeNs = bare.wakeupNs + bare.contextSwitchNs + c.ipiTakeExits * c.vmExitNs;
    // A descheduled vCPU waits for the host task running on its CPU to use its slice: the host's
    // sched_min_granularity, 0.75 ms x (1 + log2(8)) = 3 ms on a host of 8 or more CPUs (kernel/sched/fair.c,
    // SCHED_TUNABLESCALING_LOG). GUESS: the whole slice each time, so a moment of it lies uniformly within it.
    c.vcpuPreemptMaxNs = 3.0e6; // fair.c's sched_min_granularity on 8+ CPUs; the whole slice each time: GUESS
    // Pause-loop exiting (Intel SDM 3C, 25.1.3: a VM exit once a PAUSE loop outlasts PLE_Window): a vCPU spinning on
    // a lock or an acknowledgement exits after KVM's ple_window (it grows on exits that find no one to yield to,
    // not modelled), and handle_pause() ->
    // kvm_vcpu_on_spin() yields to a descheduled vCPU of the guest (yield_to(): made the next task of its host CPU,
    // which reschedules): the exit, then the host's wake-up and switch to that vCPU's thread at the processor's own
    // costs.
    constexpr double kPleWindowCycles = 4096; // source: KVM_VMX_DEFAULT_PLE_WINDOW, Linux v4.0.5 arch/x86/kvm/vmx.c
    c.pleBoostNs = cycles(kPleWindowCycles) + c.vmExitNs + bare.wakeupNs + bare.contextSwitchNs;
    return c;
}

} // namespace mms
