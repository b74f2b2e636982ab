import AppStoreEngine
import Foundation
import PostgresNIO

/// Turns what postgres-nio throws into `StoreError.storageFailure` messages that name the database and say what to do.
///
/// postgres-nio's own descriptions are generic on purpose (they could carry query values); the server's message,
/// its SQLSTATE code and the connection error are what tell a person what happened.
enum PostgresFailure {
    /// The error of a statement, or of connecting when `sql` is `nil`.
    static func describe(_ error: any Error, running sql: String?, on database: PostgresStorage.Configuration) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? PostgresDecodingError {
            return .storageFailure(
                "The column \"\(error.columnName)\" of the database at \(database) holds \(error.postgresType), not what OpenStoreKit wrote there. Something other than OpenStoreKit changed the schema; use a database or schema of OpenStoreKit's own."
            )
        }
        guard let error = error as? PSQLError else {
            return .storageFailure("PostgreSQL storage at \(database) failed: \(error).")
        }
        if let server = error.serverInfo {
            return serverError(server, running: sql, on: database)
        }
        let reason = error.underlying.map { String(describing: $0) } ?? "\(error.code)"
        switch error.code {
        case .sslUnsupported:
            return .storageFailure(
                "The PostgreSQL server at \(database) does not offer TLS, and the URL asks for sslmode=\(database.tls.rawValue). Turn on ssl in the server's postgresql.conf, or use sslmode=disable on a trusted network."
            )
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
            let place = database.host.hasPrefix("/") ? "its socket in \(database.host)" : "\(database.host):\(database.port)"
            return .storageFailure(
                "Cannot reach PostgreSQL at \(database): \(reason). Check that the server runs and accepts connections on \(place) (pg_isready -h \(database.host) -p \(database.port)); nothing was changed."
            )
        case .poolClosed:
            return .storageFailure("The PostgreSQL storage for \(database) was closed; open a new one.")
        case .queryCancelled:
            return .storageFailure("A store operation on PostgreSQL at \(database) was cancelled before it ran; nothing was changed.")
        case .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError:
            return .storageFailure(
                "PostgreSQL at \(database) asks for a login OpenStoreKit cannot give (\(reason)). Put the role's password in the URL (postgres://USER:PASSWORD@…), and use scram-sha-256 or md5 in the server's pg_hba.conf."
            )
        default:
            return .storageFailure("PostgreSQL storage at \(database) failed (\(error.code)): \(reason). Nothing was changed.")
        }
    }

    /// The error of a `COMMIT`: unlike any other, it may have taken effect.
    static func describeCommit(_ error: any Error, tenants: [String], on database: PostgresStorage.Configuration) -> StoreError {
        if let error = error as? PSQLError, let server = error.serverInfo {
            return serverError(server, running: "COMMIT", on: database)
        }
        let stores = tenants.count == 1 ? "store \"\(tenants[0])\"" : "stores " + tenants.map { "\"\($0)\"" }.joined(separator: ", ")
        return .storageFailure(
            "The connection to PostgreSQL at \(database) broke while committing on \(stores): the operations may or may not have taken effect. Check the state of \(stores) before repeating them."
        )
    }

    /// An error the server reported, by its SQLSTATE class.
    private static func serverError(_ server: PSQLError.ServerInfo, running sql: String?, on database: PostgresStorage.Configuration) -> StoreError {
        let message = server[.message] ?? "no message"
        let code = server[.sqlState] ?? "?????"
        let detail = [server[.detail], server[.hint]].compactMap { $0 }.joined(separator: " ")
        let said = "\(message)\(detail.isEmpty ? "" : " (\(detail))") [SQLSTATE \(code)]"
        let statement = sql.map { " while running \"\(firstLine(of: $0))\"" } ?? ""
        switch code {
        case "28P01", "28000":
            return .storageFailure(
                "PostgreSQL at \(database) refused the login of \(database.username): \(said). Check the user name and password in the database URL, and the server's pg_hba.conf."
            )
        case "3D000":
            return .storageFailure(
                "The database \"\(database.database)\" does not exist on the PostgreSQL server at \(database.host):\(database.port). Create it (createdb -O \(database.username) \(database.database)) or name another one in the URL."
            )
        case "42501":
            return .storageFailure(
                "PostgreSQL at \(database) refused \(database.username) a privilege: \(said)\(statement). Grant it (for a schema: CREATE on the database, or a schema the role owns), or connect as the owner."
            )
        case "53300":
            return .storageFailure(
                "PostgreSQL at \(database) has no connection left: \(said). Raise max_connections on the server or lower the storage's maximumConnections (now \(database.maximumConnections))."
            )
        case "23505" where server[.constraintName] == "api_key_pkey":
            // Two tenants' transactions added the same key identifier at once: each checked under its own tenant's
            // lock, and the primary key refused the second.
            return .apiKeyExists(
                "An API key with this ID was stored by another transaction at the same moment: \(said). Key IDs are unique across the storage: make a new key, or use the existing one."
            )
        case "55P03":
            return .storageFailure(
                "A store operation waited more than \(database.lockTimeout) for its store's lock in PostgreSQL at \(database): another transaction held it (\(message)). Nothing was changed; try again, and look in pg_stat_activity for a transaction that stays open."
            )
        case "57P01", "57P02", "57P03":
            return .storageFailure(
                "PostgreSQL at \(database) is shutting down or starting up: \(said). Nothing was changed; try again once it runs."
            )
        default:
            return .storageFailure("PostgreSQL at \(database) failed: \(said)\(statement). Nothing was changed.")
        }
    }

    private static func firstLine(of sql: String) -> String {
        let line = sql.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? sql
        return line.count > 80 ? line.prefix(80) + "…" : line
    }
}
