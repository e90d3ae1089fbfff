#pragma once
// fs/namei.c, as far as the programs here create, link and unlink names: a directory (the VFS's parent inode) whose
// i_mutex creat, link and unlink of a name in it take for the filesystem's part of the operation -- a sleeping mutex
// with optimistic spinning.

#include "sync/lockstat.h"
#include "sync/mutex.h"

#include <memory>
#include <vector>

namespace mms {

struct Directory {
    Mutex i_mutex { "dir->i_mutex" };
    // The filesystem's side (fs/fs.h): the directory's inode number and block, given on first use, and the inode
    // numbers of the names created in it and not yet unlinked, newest last.
    std::uint32_t ino = 0;
    std::uint32_t block = 0;
    std::vector<std::uint32_t> names;
};

// The directories the programs made (sys::Dir), for as long as the kernel runs.
struct Directories {
    std::vector<std::unique_ptr<Directory>> all;
    Directory& mkdir()
    {
        all.push_back(std::make_unique<Directory>());
        return *all.back();
    }
    void lockStats(LockStats& out) const
    {
        for (const auto& d : all)
            out.push_back(&d->i_mutex.stat());
    }
};

} // namespace mms
