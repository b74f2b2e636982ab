import GRDB
import GRDBSQLite
import Synchronization

/// Copies the write-ahead log back into the database file on a connection and a thread of its own, so the writer
/// connection — every store operation waits for it — never does.
///
/// SQLite's automatic checkpoint runs inside the commit that takes the log past 1,000 pages, on the committing
/// connection: under load that was a seventh of the writer's time (the pages copied, and the file syncs). Here the
/// writer's automatic checkpoint is off; a write-ahead-log hook on it counts the pages each commit leaves in the log
/// (GRDB offers no such count, hence the C API), and past ``pageThreshold`` pages a passive checkpoint runs on this
/// connection, beside the writer: it copies what no reader still needs and waits for nobody. What the log holds is
/// committed either way; only where it is read from changes.
///
/// The log starts over from its beginning only when a write finds every frame in it copied. A checkpoint beside a
/// writer that never pauses always leaves the frames committed while it ran, so under steady load the log grew by
/// every page written (hundreds of megabytes in a minute) and every read searched more of it. Past
/// ``restartThreshold`` pages the writer therefore copies that remainder itself, when no background checkpoint runs:
/// a few pages, since the background one copied the rest, and then the log starts over.
final class BackgroundCheckpointer: Sendable {
    /// The log's size, in pages, past which a checkpoint starts: 16 MB with SQLite's 4 KB pages, four times SQLite's
    /// default for its automatic one. A checkpoint copies the newest version of each page once, and a busy store
    /// writes the same index pages again and again: the longer the log, the fewer copies and file syncs per commit.
    static let pageThreshold: Int32 = 4_000
    /// The log's size, in pages, past which the writer copies what the background checkpoints left, so that the log
    /// can start over: 32 MB with 4 KB pages.
    static let restartThreshold: Int32 = 2 * pageThreshold

    private let connection: DatabaseQueue
    /// Whether a checkpoint is queued or running: the hook starts at most one at a time.
    private let running = Mutex(false)

    /// Opens the checkpointing connection on the database at `path`, whose journal is already in WAL mode.
    init(path: String) throws {
        var configuration = Configuration()
        configuration.label = "OpenStoreKit.checkpointer"
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Turns the writer connection's automatic checkpoint off and takes over: called once, on the writer.
    ///
    /// The hook refers to this checkpointer without retaining it: its owner must keep it as long as the writer commits.
    func takeOver(from writer: Database) throws {
        try writer.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(writer.sqliteConnection, { context, connection, _, pages in
            if let context, pages >= BackgroundCheckpointer.pageThreshold {
                Unmanaged<BackgroundCheckpointer>.fromOpaque(context).takeUnretainedValue().checkpoint(writer: connection, pages: pages)
            }
            return SQLITE_OK
        }, context)
    }

    /// Returns once the checkpoint queued or running, if any, has ended.
    func idle() async {
        _ = try? await connection.writeWithoutTransaction { _ in }
    }

    /// Queues a passive checkpoint, unless one is queued or running; past ``restartThreshold`` pages with none
    /// running, checkpoints on `writer` instead, in the hook, as SQLite's own automatic checkpoint does.
    private func checkpoint(writer: OpaquePointer?, pages: Int32) {
        let starts = running.withLock { running in
            defer { running = true }
            return !running
        }
        guard starts else { return }
        if pages >= Self.restartThreshold {
            // Only this hook, on the writer's thread, starts checkpoints: none can begin until `running` is false again.
            // A failure leaves the pages in the log, as below.
            _ = sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            running.withLock { $0 = false }
            return
        }
        connection.asyncWriteWithoutTransaction { db in
            // A failure (another process checkpointing, a reader in the way) leaves the pages in the log, where
            // the next checkpoint finds them.
            _ = try? db.checkpoint(.passive)
            self.running.withLock { $0 = false }
        }
    }
}
