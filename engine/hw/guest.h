#pragma once
// The machine as a KVM guest: what a guest kernel's IPIs and page faults cost on top of bare metal, for a guest of
// 2015 on Haswell-class hosts (before paravirtual TLB flushes, 4.16, and without APICv posted interrupts).
// docs/presets.md ("KVM guest") lists each figure with its source.
//
// Every IPI the guest sends traps: the write of the APIC's ICR (x2APIC WRMSR or xAPIC MMIO) is a VM exit on the
// sender, whose handler (kvm_apic_send_ipi -> kvm_vcpu_kick) sends a host IPI to the target vCPU's physical CPU;
// that forces the target out of guest mode (a second exit), the interrupt is injected at its re-entry, and its
// handler's EOI write traps too (a third; ack_APIC_irq() runs before the flush function, so before the ack the
// initiator spins for). The sender's exits are one per target, in sequence; the targets' run in parallel.

#include "hw/costmodel.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mms {

enum class Guest : std::uint8_t {
    None, // bare metal
    Kvm, // a vCPU per CPU of a KVM guest of 2015
};

const char* guestName(Guest g);
std::optional<Guest> guestFromName(const std::string& name);
std::vector<std::string> guestNames();

// The cost model of the machine `bare` run as guest `g`: bare itself for Guest::None; for Guest::Kvm the VM exits
// of an IPI folded into the IPI figures (ipiSendNs, ipiPerExtraTargetNs, ipiHandleNs) and the two-dimensional
// page walks of a fault (eptFaultWalkNs). A synchronous round to n targets then waits
// bare.ipiRoundNs(n) + (n * ipiSendExits + ipiTakeExits) * vmExitNs, and each target's interrupt takes
// bare.ipiHandleNs + ipiTakeExits * vmExitNs.
CostModel guestCostModel(const CostModel& bare, Guest g);

} // namespace mms
