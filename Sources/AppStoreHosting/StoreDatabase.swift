public import AppStoreEngine
import Synchronization

/// A kind of database a data directory's store can keep its state in, named by a URL scheme: SQLite (`AppStoreSQLite`,
/// the directory's own file) or PostgreSQL (`AppStorePostgres`, `postgres://`).
///
/// ``StoreFactory`` links no database: a program registers the ones it links (``StoreFactory/register(_:)``), so an
/// app that only talks to `storekit serve`, or only runs `SKTestSession`s in memory, carries neither.
public protocol StoreDatabase: Sendable {
    /// The URL schemes it opens, lowercased: `postgres` and `postgresql`, say.
    var schemes: Set<String> { get }

    /// Opens the database a URL names, for a tenant of a data directory's store.
    ///
    /// - Parameters:
    ///   - url: The database's URL, whose scheme is one of ``schemes``; `nil` for the data directory's own database.
    ///   - directory: The data directory the store belongs to: where its certificate authority is kept.
    ///   - tenant: The tenant being opened, whose stored clock the answer carries.
    /// - Throws: `StoreError.storageFailure` saying why the database cannot be used.
    func open(_ url: String?, in directory: StoreDataDirectory, tenant: String) throws(StoreError) -> OpenedStoreDatabase
}

/// A database opened for a store: its storage, the signer of what the store signs there, and the tenant's clock.
public struct OpenedStoreDatabase: Sendable {
    /// The store's state.
    public var storage: any Storage
    /// Signs the store's receipts and JWS: the authority every store on the database shares.
    public var signer: StoreSigner
    /// The tenant's stored clock offset and rate.
    public var clockState: StoreClockState

    /// Describes an opened database.
    public init(storage: any Storage, signer: StoreSigner, clockState: StoreClockState) {
        self.storage = storage
        self.signer = signer
        self.clockState = clockState
    }
}

extension StoreFactory {
    /// The databases this process registered, by URL scheme; ``dataDirectoryScheme`` is the data directory's own.
    private static let databases = Mutex<[String: any StoreDatabase]>([:])

    /// The scheme of a data directory's own database, used when a store is given no database URL: SQLite's.
    public static let dataDirectoryScheme = "sqlite"

    /// Makes a database openable by its URL schemes, from now on, in this process; registering a scheme again
    /// replaces the earlier one. The `storekit` command registers SQLite and PostgreSQL; `OpenStoreKit` registers
    /// SQLite when its `SQLite` package trait is on (the default).
    public static func register(_ database: some StoreDatabase) {
        databases.withLock { registered in
            for scheme in database.schemes { registered[scheme.lowercased()] = database }
        }
    }

    /// The registered database for a URL scheme, or `nil`.
    static func database(scheme: String) -> (any StoreDatabase)? {
        databases.withLock { $0[scheme.lowercased()] }
    }
}
