import Foundation

/// What a server process holds at one moment, read from Linux's `/proc`: its resident memory, its open file
/// descriptors (files, sockets, pipes, event descriptors) and its threads.
///
/// `storekit bench http --workload tenants` reads it before and after making tenants, for the cost of one. The
/// figures are the kernel's, so they count what the allocator kept as well as what the store uses.
struct ServerProcessUsage: Sendable, Equatable {
    /// `VmRSS` of `/proc/<pid>/status`, in kibibytes.
    var residentKilobytes: Int
    /// The entries of `/proc/<pid>/fd`.
    var openDescriptors: Int
    /// `Threads` of `/proc/<pid>/status`.
    var threads: Int
    /// The size of the SQLite databases the process has open (`*.sqlite` and their `-wal` logs), in kibibytes: the
    /// disk its tenants take on the embedded storage.
    var databaseKilobytes: Int

    /// What process `pid` holds now, or nil when `/proc` does not show it (another machine, another user's process,
    /// a process that ended, or a system without `/proc`).
    init?(pid: Int32) {
        guard let status = Self.procFile("/proc/\(pid)/status") else { return nil }
        // "VmRSS:\t   12345 kB", "Threads:\t12".
        func field(_ name: String) -> Int? {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }?
                .split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }
        }
        guard let kilobytes = field("VmRSS"), let threads = field("Threads"),
              let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        else { return nil }
        residentKilobytes = kilobytes
        openDescriptors = descriptors.count
        self.threads = threads
        // A database and its log are open for as long as the store is.
        let databases = Set(descriptors.compactMap { descriptor -> String? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)"),
                  target.hasSuffix(".sqlite") || target.hasSuffix(".sqlite-wal") else { return nil }
            return target
        })
        databaseKilobytes = databases.reduce(0) { total, path in
            total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) / 1024
        }
    }

    /// The process that listens on TCP `port` of this machine, found from the listening sockets of `/proc/net/tcp`
    /// and `/proc/net/tcp6` and the socket descriptors of the processes this user may read; nil when there is none.
    static func listener(onPort port: Int) -> Int32? {
        var sockets = Set<Substring>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = Self.procFile(table) else { continue }
            // "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...", the
            // address as hex IP:PORT; state 0A is LISTEN.
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, fields[3] == "0A", let colon = fields[1].lastIndex(of: ":"),
                      Int(fields[1][fields[1].index(after: colon)...], radix: 16) == port else { continue }
                sockets.insert(fields[9])
            }
        }
        guard !sockets.isEmpty, let processes = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        let me = ProcessInfo.processInfo.processIdentifier
        for process in processes {
            guard let pid = Int32(process), pid != me,
                  let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process)/fd") else { continue }
            for descriptor in descriptors {
                // A socket's descriptor links to "socket:[inode]".
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process)/fd/\(descriptor)"),
                      target.hasPrefix("socket:["), sockets.contains(target.dropFirst(8).dropLast()) else { continue }
                return pid
            }
        }
        return nil
    }

    /// The whole text of a file under `/proc`. Foundation's `String(contentsOfFile:)` reads as many bytes as the
    /// file's size says, and a `/proc` file says 0: it got one read's worth, 4 KB, and on a busy machine the socket
    /// table's line for the server's port was past it. Reading to the end takes as many reads as the kernel needs.
    private static func procFile(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return (try? handle.readToEnd()).map { String(decoding: $0, as: UTF8.self) }
    }

    /// "45.2 MB resident, 23 open descriptors, 12 threads, 1.4 MB of databases".
    var summary: String {
        "\(String(format: "%.1f", Double(residentKilobytes) / 1024)) MB resident, \(openDescriptors) open descriptors, \(threads) threads, "
            + "\(String(format: "%.1f", Double(databaseKilobytes) / 1024)) MB of databases"
    }
}
