// native: a scenario's workload as real processes on this machine's kernel (nativeworkload.h), measured, beside the
// simulated run of this machine's shape (its CPU count, memory and swap, its kernel version as `kernel`). Where the
// scenario needs memory pressure, the processes run in a memory cgroup (v2, or v1 where the memory controller is
// there) limited to the scenario's memory and swap at the scale asked for. Nothing is left behind: the processes,
// the cgroup and the temporary directory go
// at the end, on an error, and on Ctrl-C, SIGTERM or SIGHUP.
#include "clicommand.h"
#include "cliinput.h"
#include "cliinterrupt.h"
#include "clioutput.h"
#include "clirun.h"
#include "hw/machine.h"
#include "nativeworkload.h"
#include "run/ratio.h"
#include "run/table.h"
#include "scenario/size.h"

#include <sys/utsname.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace mms::cli {

namespace {
    namespace fs = std::filesystem;

    struct NativeOptions {
        std::vector<std::string> positionals, variants, sets;
        std::string scale, format, out, reps;
        bool noPressure = false;
        CLI::App* app = nullptr;
    };

    // ---- the host

    struct Host {
        int cpus = 1;
        std::uint64_t memTotal = 0, swapTotal = 0, swapFree = 0; // bytes
        std::string release; // uname -r
        std::string kernel; // "X.Y" of the release
        std::string thp; // transparent_hugepage/enabled: the chosen one of [always] madvise never
        std::string hypervisor; // CPUID's hypervisor vendor ("KVMKVMKVM", "Microsoft Hv", ...), empty on bare metal
    };

    // CPUID leaf 0x40000000's vendor signature where leaf 1 says a hypervisor runs this CPU (ECX bit 31): the
    // interface KVM, Xen, Hyper-V and VMware give their guests.
    std::string hypervisorVendor()
    {
#if defined(__x86_64__) || defined(__i386__)
        unsigned a = 0, b = 0, c = 0, d = 0;
        if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
            return {};
        __cpuid(0x40000000, a, b, c, d);
        char v[13] = {};
        std::memcpy(v, &b, 4);
        std::memcpy(v + 4, &c, 4);
        std::memcpy(v + 8, &d, 4);
        std::string s(v);
        while (!s.empty() && (s.back() == ' ' || s.back() == '\0'))
            s.pop_back();
        return s.empty() ? std::string("unknown") : s;
#else
        return {};
#endif
    }

    std::uint64_t meminfo(const std::string& key)
    {
        std::ifstream f("/proc/meminfo");
        std::string k;
        std::uint64_t kb = 0;
        std::string unit;
        while (f >> k >> kb) {
            std::getline(f, unit);
            if (k == key + ":")
                return kb * 1024;
        }
        return 0;
    }

    Host probeHost()
    {
        Host h;
        h.cpus = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
        h.memTotal = meminfo("MemTotal");
        h.swapTotal = meminfo("SwapTotal");
        h.swapFree = meminfo("SwapFree");
        utsname u {};
        uname(&u);
        h.release = u.release;
        // "6.1.0-13-amd64" -> "6.1"
        std::size_t dot = h.release.find('.');
        std::size_t end = dot == std::string::npos ? dot : h.release.find_first_not_of("0123456789", dot + 1);
        h.kernel = h.release.substr(0, end);
        std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
        for (std::string w; thp >> w;)
            if (w.size() > 2 && w.front() == '[' && w.back() == ']')
                h.thp = w.substr(1, w.size() - 2);
        h.hypervisor = hypervisorVendor();
        return h;
    }

    std::string gib(std::uint64_t bytes)
    {
        char b[32];
        if (bytes >= (1ULL << 30))
            std::snprintf(b, sizeof b, "%.1f GiB", double(bytes) / double(1ULL << 30));
        else
            std::snprintf(b, sizeof b, "%.1f MiB", double(bytes) / double(1ULL << 20));
        return b;
    }

    // ---- what is made on the host, and removed again

    class TempDir {
    public:
        TempDir()
        {
            const char* t = std::getenv("TMPDIR");
            std::string tmpl = std::string(t && *t ? t : "/tmp") + "/mmscope-native.XXXXXX";
            if (!mkdtemp(tmpl.data()))
                throw BadInput("native: cannot create a temporary directory " + tmpl + " (" + std::strerror(errno)
                    + "); set TMPDIR to a writable directory");
            m_path = tmpl;
        }
        ~TempDir()
        {
            std::error_code ec;
            fs::remove_all(m_path, ec);
        }
        TempDir(const TempDir&) = delete;
        TempDir& operator=(const TempDir&) = delete;
        const std::string& path() const { return m_path; }

    private:
        std::string m_path;
    };

    bool writeText(const std::string& file, const std::string& text)
    {
        std::ofstream f(file);
        return f && (f << text).flush();
    }

    // A memory cgroup hierarchy this process is in: the directory of its own cgroup there, and which version.
    struct CgroupHome {
        std::string dir;
        int version = 0; // 2: the unified hierarchy; 1: a cgroup v1 memory hierarchy
    };

    // The mount point and root of the first mount in /proc/self/mountinfo whose filesystem type is `type` and, if
    // `option` is given, whose super options list it (a cgroup v1 hierarchy's controllers).
    std::pair<std::string, std::string> cgroupMount(const std::string& type, const std::string& option)
    {
        std::ifstream mi("/proc/self/mountinfo");
        for (std::string line; std::getline(mi, line);) {
            std::istringstream in(line);
            std::vector<std::string> f;
            for (std::string w; in >> w;)
                f.push_back(w);
            auto dash = std::find(f.begin(), f.end(), "-");
            if (f.size() < 5 || dash == f.end() || dash + 1 == f.end() || *(dash + 1) != type)
                continue;
            if (!option.empty()) {
                const std::string super = dash + 3 < f.end() ? *(dash + 3) : std::string();
                std::istringstream opts(super);
                bool has = false;
                for (std::string o; std::getline(opts, o, ',');)
                    has = has || o == option;
                if (!has)
                    continue;
            }
            return { f[4], f[3] };
        }
        return {};
    }

    // This process's cgroup in the hierarchy of /proc/self/cgroup's line whose controllers are `controllers` ("" for
    // the unified one), as a directory under the hierarchy's mount.
    std::string cgroupDir(const std::pair<std::string, std::string>& mount, const std::string& controllers)
    {
        std::ifstream cg("/proc/self/cgroup");
        std::string path;
        for (std::string line; std::getline(cg, line);) {
            const std::size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
            if (b == std::string::npos)
                continue;
            std::istringstream names(line.substr(a + 1, b - a - 1));
            bool match = controllers.empty() && b == a + 1;
            for (std::string n; !controllers.empty() && std::getline(names, n, ',');)
                match = match || n == controllers;
            if (match)
                path = line.substr(b + 1);
        }
        const auto& [point, root] = mount;
        if (root != "/" && path.rfind(root, 0) == 0)
            path = path.substr(root.size()); // a hierarchy mounted from below its root
        return point + (path == "/" ? "" : path);
    }

    // The cgroup to make a child of: the unified hierarchy's where its memory controller is available, else a cgroup
    // v1 memory hierarchy's; empty with `why` saying what is missing.
    CgroupHome ownCgroup(std::string& why)
    {
        const auto unified = cgroupMount("cgroup2", "");
        if (!unified.first.empty()) {
            const std::string dir = cgroupDir(unified, "");
            std::ifstream controllers(dir + "/cgroup.controllers");
            for (std::string c; controllers >> c;)
                if (c == "memory")
                    return { dir, 2 };
        }
        const auto v1 = cgroupMount("cgroup", "memory");
        if (!v1.first.empty())
            return { cgroupDir(v1, "memory"), 1 };
        why = unified.first.empty()
            ? "this host has no memory cgroup hierarchy (/proc/self/mountinfo lists no cgroup2 mount and no cgroup "
              "mount with the memory controller)"
            : "the cgroup v2 memory controller is not available in " + cgroupDir(unified, "")
                + " (its cgroup.controllers has no memory: not delegated) and no cgroup v1 hierarchy has it";
        return {};
    }

    class MemoryCgroup {
    public:
        // A new child of this process's memory cgroup whose processes may use `memory` of RAM and `swap` of swap:
        // cgroup v2's memory.max and memory.swap.max, or v1's memory.limit_in_bytes and memory.memsw.limit_in_bytes
        // (memory and swap together). BadInput says why it cannot be.
        MemoryCgroup(std::uint64_t memory, std::uint64_t swap, const std::string& needs)
        {
            std::string why;
            const CgroupHome home = ownCgroup(why);
            auto refuse = [&](const std::string& what) {
                throw BadInput("native: " + needs + ", which needs a memory cgroup with a swap limit, and " + what
                    + "; run as root on a host with cgroup v2 (or in a cgroup delegated to you: systemd-run --user "
                      "--scope -p Delegate=yes) or the cgroup v1 memory controller, or "
                      "give --no-pressure to run the program without the limit");
            };
            if (home.dir.empty())
                refuse(why);
            const std::string& parent = home.dir;
            m_version = home.version;
            if (m_version == 2) {
                std::ifstream sub(parent + "/cgroup.subtree_control");
                std::string c;
                bool enabled = false;
                while (sub >> c)
                    enabled = enabled || c == "memory";
                if (!enabled && !writeText(parent + "/cgroup.subtree_control", "+memory"))
                    refuse("the memory controller cannot be enabled for the children of " + parent + " ("
                        + std::strerror(errno) + ")");
            }
            m_dir = parent + "/mmscope-native-" + std::to_string(getpid());
            if (!fs::create_directory(m_dir))
                refuse("a cgroup cannot be created under " + parent + " (" + std::strerror(errno) + ")");
            const char* swapFile = m_version == 2 ? "memory.swap.max" : "memory.memsw.limit_in_bytes";
            if (!fs::exists(m_dir + "/" + swapFile)) {
                remove();
                refuse(std::string("the memory cgroup has no ") + swapFile
                    + " (swap accounting is off; boot with swapaccount=1)");
            }
            const bool written = m_version == 2
                ? writeText(m_dir + "/memory.max", std::to_string(memory))
                    && writeText(m_dir + "/memory.swap.max", std::to_string(swap))
                : writeText(m_dir + "/memory.limit_in_bytes", std::to_string(memory)) // before memsw: memsw >= it
                    && writeText(m_dir + "/memory.memsw.limit_in_bytes", std::to_string(memory + swap));
            if (!written) {
                remove();
                refuse("its limits cannot be written (" + std::string(std::strerror(errno)) + ")");
            }
            m_limits = m_version == 2 ? "memory.max " + gib(memory) + ", memory.swap.max " + gib(swap)
                                      : "memory.limit_in_bytes " + gib(memory) + ", memory.memsw.limit_in_bytes "
                    + gib(memory + swap);
        }
        ~MemoryCgroup() { remove(); }
        MemoryCgroup(const MemoryCgroup&) = delete;
        MemoryCgroup& operator=(const MemoryCgroup&) = delete;
        const std::string& dir() const { return m_dir; }
        // The limits as the cgroup's files hold them, for the report, and the hierarchy's version (1 or 2).
        const std::string& limits() const { return m_limits; }
        int version() const { return m_version; }

    private:
        void remove()
        {
            if (m_dir.empty())
                return;
            if (m_version == 2) // Linux 5.14; the processes are reaped already when it is not there
                writeText(m_dir + "/cgroup.kill", "1");
            for (int i = 0; i < 200 && ::rmdir(m_dir.c_str()) != 0 && errno == EBUSY; ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            m_dir.clear();
        }
        std::string m_dir;
        int m_version = 2;
        std::string m_limits;
    };

    // ---- the program of a scenario's workload

    NativeProgram programOf(const Scenario& sc, const std::string& variant, double scale)
    {
        const OJson& w = sc.json()["workload"];
        NativeProgram p;
        p.kind = w["kind"];
        auto scaled = [scale](const OJson& size) {
            auto bytes = static_cast<double>(
                *parseSize(size.is_string() ? size.get<std::string>() : std::to_string(size.get<std::uint64_t>())));
            return std::max<std::uint64_t>(
                4096, static_cast<std::uint64_t>(std::llround(bytes * scale / 4096.0)) * 4096);
        };
        if (p.kind == "memset-madvise") {
            p.processes = w["processes"];
            p.bytes = scaled(w["size"]);
            p.loops = w["loops"];
            p.fillByte = w.value("fill_byte", 1);
            p.forkChildren = w.value("fork_children", true);
            p.madvFree = sc.json()["variants"][variant].value("madvise.advice", std::string("dontneed")) == "free";
        } else if (p.kind == "dd") {
            if (w.value("runtime_s", 0.0) != 0)
                throw BadInput("native: " + sc.id() + ": dd with runtime_s " + w["runtime_s"].dump()
                    + " (readers stopped after a simulated time) has no native form yet; expected runtime_s=0, every "
                      "dd reading its whole file");
            p.files = w["files"];
            p.readers = w["readers"];
            p.bytes = scaled(w["size"]);
        } else
            throw BadInput("native: " + sc.id() + ": its workload " + p.kind
                + " has no native form yet; native runs memset-madvise (madv-free-swapin) and dd (dd-sparse-read)");
        return p;
    }

    std::string describe(const NativeProgram& p)
    {
        if (p.kind == "dd")
            return std::to_string(p.files) + " sparse file(s) of " + gib(p.bytes) + ", " + std::to_string(p.readers)
                + " dd bs=4k reader(s) each";
        return std::to_string(p.processes) + " processes x " + gib(p.bytes) + ", " + std::to_string(p.loops)
            + " x { memset; madvise(" + (p.madvFree ? "MADV_FREE" : "MADV_DONTNEED") + ") }";
    }

    // The measured figures under the simulated metrics' names.
    Metrics measured(const NativeProgram& p, const NativeMeasure& m)
    {
        Metrics x;
        x["elapsed_s"] = m.elapsedS;
        x["user_s"] = m.userS;
        x["sys_s"] = m.sysS;
        auto vm = [&](const char* k) {
            auto it = m.vmstat.find(k);
            return it == m.vmstat.end() ? std::nan("") : it->second;
        };
        x["swapins"] = vm("pswpin");
        x["swapouts"] = vm("pswpout");
        x["pgfault"] = m.minorFaults + m.majorFaults;
        x["pgmajfault"] = m.majorFaults;
        x["pglazyfreed"] = vm("pglazyfreed");
        if (p.kind == "dd")
            x["ns_per_page"] = m.pagesRead > 0 ? m.elapsedS * 1e9 / m.pagesRead : std::nan("");
        return x;
    }

    // A measured or simulated value as the run tables print it (run/table.h); "-" where there is none.
    std::string cell(double v, const std::string& metric = {}) { return std::isnan(v) ? "-" : formatNumber(v, metric); }

    struct Row {
        std::string variant, metric;
        double native, simulated;
        double nativeSd = std::nan(""); // over the repetitions, where there are several
    };

    // The native figure, its mean ± standard deviation where the variant ran more than once (as `run` prints them).
    std::string nativeCell(const Row& r)
    {
        return cell(r.native, r.metric) + (std::isnan(r.nativeSd) ? "" : " ±" + cell(r.nativeSd, r.metric));
    }

    std::string table(const std::vector<Row>& rows, bool markdown)
    {
        std::ostringstream s;
        char b[160];
        if (markdown)
            s << "| variant | metric | native | simulated | native / simulated |\n|---|---|---:|---:|---:|\n";
        else {
            std::snprintf(
                b, sizeof b, "%-18s %-12s %20s %14s %12s\n", "variant", "metric", "native", "simulated", "native/sim");
            s << b;
        }
        std::string last;
        for (const Row& r : rows) {
            const std::string ratio = std::isnan(r.native) || std::isnan(r.simulated) || r.simulated == 0
                ? "-"
                : formatRatio(r.native / r.simulated);
            const std::string v = r.variant == last ? "" : r.variant;
            last = r.variant;
            if (markdown)
                s << "| " << v << " | " << r.metric << " | " << nativeCell(r) << " | " << cell(r.simulated, r.metric)
                  << " | " << ratio << " |\n";
            else {
                std::snprintf(b, sizeof b, "%-18s %-12s %20s %14s %12s\n", v.c_str(), r.metric.c_str(),
                    nativeCell(r).c_str(), cell(r.simulated, r.metric).c_str(), ratio.c_str());
                s << b;
            }
        }
        return s.str();
    }

    int native(const NativeOptions& o, std::ostream& out, std::ostream& err)
    {
        if (o.positionals.size() != 1)
            throw BadInput(o.positionals.empty()
                    ? "native: expected a SCENARIO (an id from `mmscope-cli list`, or a file)"
                    : o.positionals[1] + ": unexpected argument; one SCENARIO only");
        bool markdown = false;
        if (o.app->count("--format")) {
            if (o.format != "text" && o.format != "markdown")
                throw BadInput("--format " + o.format + ": expected text or markdown");
            markdown = o.format == "markdown";
        }
        RunArgs r;
        r.scenario = o.positionals[0];
        r.variants = o.variants;
        for (const std::string& kv : o.sets)
            r.sets.push_back(parseSet(kv));
        r.reps = 1;
        r.out = o.out;
        Scenario sc = prepare(r);
        const double scale = o.app->count("--scale") ? parseScale(o.scale) : sc.faithfulScale();
        const int reps = o.app->count("--reps") ? static_cast<int>(parseInt("--reps", o.reps, 1, 100)) : 1;
        const Host host = probeHost();

        // The scenario's memory and swap at this scale: the limits of the cgroup when its workload needs pressure.
        const OJson& m = sc.json()["machine"];
        auto sized = [](const OJson& v) {
            return *parseSize(v.is_string() ? v.get<std::string>() : std::to_string(v.get<std::uint64_t>()));
        };
        const auto memory = static_cast<std::uint64_t>(double(sized(m["memory"])) * scale);
        std::uint64_t swap = 0;
        for (const OJson& s : m["swap"])
            swap += static_cast<std::uint64_t>(double(sized(s["size"])) * scale);
        std::vector<std::pair<std::string, NativeProgram>> programs;
        for (const std::string& v : sc.variantNames())
            programs.emplace_back(v, programOf(sc, v, scale));
        const NativeProgram& first = programs.front().second;
        const std::uint64_t footprint
            = first.kind == "memset-madvise" ? std::uint64_t(first.processes) * first.bytes : 0;
        const bool pressure = footprint > memory && !o.noPressure;
        const std::string needs = sc.id() + " needs memory pressure (" + gib(footprint) + " of anonymous memory on "
            + gib(memory) + " of RAM and " + gib(swap) + " of swap at --scale " + cell(scale) + ")";
        if (pressure && host.swapTotal == 0)
            throw BadInput("native: " + needs
                + ", and this host has no swap (/proc/swaps lists none): swap-outs and swap-ins cannot happen; "
                  "swapon a device or a file first, or give --no-pressure to run the program without the limit");
        if (pressure && host.swapFree < swap)
            throw BadInput("native: " + needs + ", and this host has " + gib(host.swapFree)
                + " of swap free; expected a smaller --scale");
        if (!pressure && footprint > host.memTotal / 2)
            throw BadInput("native: " + gib(footprint)
                + " of anonymous memory without a memory cgroup is more than half this host's " + gib(host.memTotal)
                + "; expected a smaller --scale");

        CleanupSignals signals;
        TempDir dir;
        std::unique_ptr<MemoryCgroup> cgroup;
        if (pressure)
            cgroup = std::make_unique<MemoryCgroup>(memory, swap, needs);
        // stderr names the cgroup's directory (for whoever must remove it after a SIGKILL); the report its limits.
        const std::string where = cgroup
            ? "a cgroup v" + std::to_string(cgroup->version()) + " memory cgroup (" + cgroup->limits() + ")"
            : std::string("no memory cgroup") + (o.noPressure && footprint > memory ? " (--no-pressure)" : "");
        err << "mmscope-cli: native: " << sc.id() << " in " << dir.path() << ", "
            << (cgroup ? "cgroup " + cgroup->dir() + " (" + cgroup->limits() + ")" : where) << "\n" << std::flush;
        // Each variant `reps` times, the variants in turn in each round, so that a drift of the host (its other
        // load, a virtual machine's first touch of its memory) spreads over every variant rather than one.
        std::vector<std::pair<std::string, std::vector<Metrics>>> native;
        for (auto& [variant, program] : programs)
            native.emplace_back(variant, std::vector<Metrics>());
        for (int rep = 0; rep < reps; ++rep)
            for (std::size_t i = 0; i < programs.size(); ++i) {
                const auto& [variant, program] = programs[i];
                err << "mmscope-cli: native: " << variant << (reps > 1 ? " (" + std::to_string(rep + 1) + "/"
                                                                      + std::to_string(reps) + ")" : std::string())
                    << ": " << describe(program) << "\n" << std::flush;
                NativeMeasure nm;
                if (!runNative(
                        program, dir.path(), cgroup ? cgroup->dir() : std::string(), [] { return interrupted(); }, nm))
                    throw Interrupted();
                native[i].second.push_back(measured(program, nm));
            }
        cgroup.reset();

        // The simulated run of this host's shape: its CPUs, the memory and swap the programs had, its kernel.
        const auto unscaled = [scale](std::uint64_t b) {
            return std::min<std::uint64_t>(1ULL << 40, static_cast<std::uint64_t>(double(b) / scale) / 4096 * 4096);
        };
        std::vector<std::pair<std::string, std::string>> shape
            = { { "machine.cpus", std::to_string(host.cpus) }, { "machine.sockets", "1" }, { "kernel", host.kernel } };
        // A KVM guest's IPIs and TLB shootdowns exit to its host (machine.guest); other hypervisors are not modelled.
        if (host.hypervisor == "KVMKVMKVM")
            shape.emplace_back("machine.guest", "kvm");
        // transparent_hugepage "madvise" gives a program that never asks for huge pages none, as "never" does.
        if (!host.thp.empty())
            shape.emplace_back("thp.enabled", host.thp == "always" ? "always" : "never");
        if (!pressure) {
            shape.emplace_back("machine.memory", std::to_string(unscaled(host.memTotal)));
            // One device, at most the largest a swap entry's offset reaches (a host with more swap than that at
            // this scale would have several; the simulation without pressure never swaps anyway).
            const std::uint64_t swapBytes = std::min(unscaled(host.swapTotal), kMaxSwapDevicePages * kPageSize);
            shape.emplace_back("machine.swap",
                host.swapTotal ? OJson::array({ OJson { { "size", swapBytes }, { "device", "ssd-2015" } } }).dump()
                               : "[]");
        }
        sc.set(shape);
        RunArgs simArgs;
        simArgs.scale = scale;
        ResultSet rs = execute(sc, runnerOptions(simArgs, false), err);
        std::vector<Row> rows;
        for (auto& [variant, runs] : native) {
            const Metrics& x = runs.front();
            const RunResult* sim = nullptr;
            for (const RunResult& rr : rs.results)
                if (rr.variant == variant)
                    sim = &rr;
            for (const char* metric : { "elapsed_s", "user_s", "sys_s", "swapins", "swapouts", "pgfault", "pgmajfault",
                     "pglazyfreed", "ns_per_page" }) {
                auto n = x.find(metric);
                if (n == x.end())
                    continue;
                double s = std::nan("");
                if (sim) // the simulated kernel's /proc/vmstat counters are "vm.NAME"
                    for (const std::string& key : { std::string(metric), "vm." + std::string(metric) })
                        if (auto it = sim->metrics.find(key); it != sim->metrics.end() && std::isnan(s))
                            s = it->second;
                double sum = 0, sq = 0;
                for (const Metrics& run : runs) {
                    const double v = run.at(metric);
                    sum += v;
                    sq += v * v;
                }
                const int k = static_cast<int>(runs.size());
                rows.push_back({ variant, metric, sum / k, s, k > 1 ? sampleStddev(sum, sq, k) : std::nan("") });
            }
        }
        const std::string bullet = markdown ? "- " : "";
        std::ostringstream text;
        text << bullet << "native " << sc.id() << " at --scale " << cell(scale) << " on this host: " << host.cpus
             << " CPUs, " << gib(host.memTotal) << " RAM, "
             << (host.swapTotal ? gib(host.swapTotal) + " swap" : std::string("no swap")) << ", Linux " << host.release
             << (host.thp.empty() ? std::string() : ", transparent huge pages " + host.thp)
             << (host.hypervisor.empty() ? std::string() : ", a guest of hypervisor " + host.hypervisor) << "\n";
        text << bullet << "native: " << where
             << "; swapins, swapouts, pglazyfreed: /proc/vmstat pswpin, pswpout, pglazyfreed (the whole host); "
                "pgfault, pgmajfault: the "
                "processes' getrusage\n";
        text << bullet << "simulated: " << sc.id() << " with";
        for (auto& [k, v] : shape)
            text << " --set " << k << "=" << v;
        text << (pressure ? " (its memory and swap: the scenario's, the cgroup's limits at this scale)" : "") << "\n\n"
             << table(rows, markdown);
        emit(r, text.str(), out);
        return 0;
    }
} // namespace

void addNativeCommand(CommandLine& cl)
{
    auto o = std::make_shared<NativeOptions>();
    Command& c = cl.add("native",
        "SCENARIO [--variant V]... [--scale F] [--set PATH=VALUE]... [--reps N] [--no-pressure]",
        "the workload as real processes on this machine's kernel, beside the simulated run of its shape",
        "Run the scenario's workload as real processes on this machine's kernel and print what they measured beside "
        "the simulated run of this machine's shape (its CPU count, memory and swap, its kernel version as `kernel`, "
        "its transparent huge pages mode, and where CPUID names KVM as the hypervisor, a KVM guest). Each variant "
        "runs its own program (madvise's advice; the kernel toggles of a variant are the host kernel's own). "
        "Measured: elapsed (wall), user and sys time and faults of the processes (getrusage), pswpin and pswpout "
        "from /proc/vmstat (the whole host's). Native forms: memset-madvise (madv-free-swapin) and dd "
        "(dd-sparse-read); other workloads are refused.\n\nA workload larger than the scenario's memory runs in a "
        "memory cgroup limited to the scenario's memory and swap at --scale: cgroup v2's memory.max and "
        "memory.swap.max, or where the memory controller is on cgroup v1, memory.limit_in_bytes and "
        "memory.memsw.limit_in_bytes (the two together); a host without a memory cgroup, write access to it, swap "
        "accounting or swap is refused with the reason (--no-pressure runs the program without the limit). The "
        "temporary directory, the cgroup and the processes are "
        "removed at the end, on an error and on Ctrl-C (exit 130).");
    c.app->add_option("SCENARIO", o->positionals, "a built-in id or a scenario file");
    addValues(c.app, "--variant", o->variants, "NAME", "run only this variant (repeatable; default: all)");
    addValues(c.app, "--set", o->sets, "PATH=VALUE",
        "override a workload parameter or field, for the native program and the simulation alike (repeatable)");
    addValue(c.app, "--scale", o->scale, "F",
        "multiply memory sizes and amounts of work by F (default: the scenario's faithful scale)");
    addValue(c.app, "--reps", o->reps, "N",
        "run each variant N times, the variants in turn, and print each figure's mean ± standard deviation "
        "(default 1, at most 100)");
    addValue(c.app, "--format", o->format, "FMT", "text | markdown (default: text)");
    addValue(c.app, "--out", o->out, "FILE", "write to FILE instead of standard output");
    c.app->add_flag("--no-pressure", o->noPressure,
        "run without a memory cgroup even where the scenario needs pressure (no swapping then)");
    o->app = c.app;
    c.run = [o](std::ostream& out, std::ostream& err) { return native(*o, out, err); };
}

} // namespace mms::cli
