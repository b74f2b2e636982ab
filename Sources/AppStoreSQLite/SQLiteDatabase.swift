public import AppStoreEngine
import Foundation
public import AppStoreHosting
import Synchronization

/// A data directory's own database: the SQLite file `store.sqlite` in it, shared by every process that opens the
/// directory, and its certificate authority in `ca/`.
///
/// Register it once (`StoreFactory.register(_:)`) and `StoreFactory` opens data directories with it. The
/// `storekit` command does, and so does `OpenStoreKit` when its `SQLite` package trait is on.
public struct SQLiteDatabase: StoreDatabase {
    /// `sqlite`: the scheme `StoreFactory` asks for a data directory given no database URL.
    public var schemes: Set<String> { [StoreFactory.dataDirectoryScheme] }

    /// The database of data directories.
    public init() {}

    /// Opens `directory`'s SQLite file, creating and migrating it when needed.
    public func open(_ url: String?, in directory: StoreDataDirectory, tenant: String) throws(StoreError) -> OpenedStoreDatabase {
        if let url {
            throw .storageFailure("\(url): a data directory's SQLite store is its own file, \(directory.databaseURL.path). Give no database URL to use it, or a postgres:// one.")
        }
        let (database, signer) = try Self.shared(in: directory)
        return OpenedStoreDatabase(storage: database, signer: signer, clockState: try database.clockState(tenant: tenant))
    }

    /// One storage and one signer per data directory in a process, for as long as a store uses them: `storekit serve`
    /// opens a store per tenant, and each would otherwise open connections of its own and load the certificate
    /// authority again.
    private static let opened = Mutex<[String: SharedDirectory]>([:])

    /// The storage and signer of `directory`: those already open in this process, or new ones.
    private static func shared(in directory: StoreDataDirectory) throws(StoreError) -> (SQLiteStorage, StoreSigner) {
        let url = directory.databaseURL
        let key = url.standardizedFileURL.path
        if let open = opened.withLock({ $0[key]?.open }) { return open }
        // Opened outside the lock: it may wait for another process setting the file up. Should another thread open
        // the same file meanwhile, the first one stored wins and the other is released.
        let storage = try SQLiteStorage(url: url)
        return opened.withLock { opened in
            if let open = opened[key]?.open { return open }
            opened = opened.filter { $0.value.storage != nil }
            let shared = SharedDirectory(storage: storage, signer: directory.signer)
            opened[key] = shared
            return (storage, shared.signer)
        }
    }
}

/// A data directory's storage, kept only while stores use it, and its signer.
private struct SharedDirectory: Sendable {
    weak var storage: SQLiteStorage?
    let signer: StoreSigner

    /// Both, while the storage is open.
    var open: (SQLiteStorage, StoreSigner)? {
        storage.map { ($0, signer) }
    }
}
