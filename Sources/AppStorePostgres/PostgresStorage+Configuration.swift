public import AppStoreEngine
import Foundation

extension PostgresStorage {
    /// Where the database is, who to connect as, and how many connections to keep: what a `postgres://` URL says.
    ///
    /// Most programs write a URL, as `psql` reads it, and let ``init(url:)`` parse it:
    ///
    /// ```
    /// postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=require&options=-c%20search_path%3Dstaging
    /// ```
    ///
    /// The query parameters read are libpq's: `sslmode`, `options` (`-c NAME=VALUE` server settings, of which
    /// `search_path` names the schema that holds the store's tables), `application_name`, `connect_timeout` and `host`
    /// (a directory holding the server's Unix socket). Any other parameter is refused rather than ignored.
    public struct Configuration: Sendable, Equatable, CustomStringConvertible {
        /// How the connection is encrypted: libpq's `sslmode` values.
        public enum TLSMode: String, Sendable, CaseIterable {
            /// Never encrypt.
            case disable
            /// Encrypt when the server offers it, without checking its certificate (libpq's default).
            case prefer
            /// Always encrypt, without checking the server's certificate.
            case require
            /// Always encrypt, and check that the server's certificate comes from a trusted authority.
            case verifyCA = "verify-ca"
            /// Always encrypt, and check the certificate's authority and that it names the host.
            case verifyFull = "verify-full"
        }

        /// The server's host name or IP address, or the directory holding its Unix socket when it starts with `/`.
        public var host: String
        /// The server's port; 5432 unless the URL says otherwise.
        public var port: Int
        /// The role to connect as.
        public var username: String
        /// The role's password; `nil` when the server needs none (`trust`, or `peer` over a Unix socket).
        public var password: String?
        /// The database; the user name when the URL names none, as libpq does.
        public var database: String
        /// The schema that holds the store's tables, created when missing; `nil` for the role's default search path
        /// (usually `public`). Several stores can share a database, a schema each.
        public var schema: String?
        /// How the connection is encrypted.
        public var tls: TLSMode
        /// The name the server shows for the storage's connections (`pg_stat_activity.application_name`).
        public var applicationName: String
        /// How long to wait for the server to accept a connection.
        public var connectTimeout: Duration
        /// Server settings sent when each connection starts (from the URL's `options`), besides the schema.
        public var serverSettings: [String: String]
        /// The most connections the storage keeps open, and so the most store operations it runs at once; each
        /// runs on a thread of the storage's own while it holds its connection. Write transactions run in groups
        /// (see `PostgresStorage.transaction(tenant:_:)`) on a quarter of them at most, at least two.
        public var maximumConnections: Int
        /// How long a transaction waits for its tenant's lock, held by another transaction, before it fails.
        public var lockTimeout: Duration

        /// Describes a database.
        ///
        /// - Parameters:
        ///   - host: The server's host name or IP address, or the directory of its Unix socket.
        ///   - port: The server's port.
        ///   - username: The role to connect as.
        ///   - password: The role's password, if the server asks for one.
        ///   - database: The database.
        ///   - schema: The schema for the store's tables; `nil` for the default search path.
        ///   - tls: How the connection is encrypted.
        public init(
            host: String, port: Int = 5432, username: String, password: String? = nil, database: String,
            schema: String? = nil, tls: TLSMode = .prefer
        ) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
            self.schema = schema
            self.tls = tls
            applicationName = "openstorekit"
            connectTimeout = .seconds(10)
            serverSettings = [:]
            maximumConnections = 8
            lockTimeout = .seconds(10)
        }

        /// Reads a `postgres://` or `postgresql://` URL.
        ///
        /// - Parameter url: `postgres://USER[:PASSWORD]@HOST[:PORT][/DATABASE][?PARAMETERS]`, with libpq's parameters
        ///   `sslmode`, `options`, `application_name`, `connect_timeout` and `host`.
        /// - Throws: `StoreError.storageFailure` saying what is wrong with the URL and how it should read.
        public init(url: String) throws(StoreError) {
            let shown = Self.redacting(url)
            func refuse(_ problem: String) -> StoreError {
                .storageFailure("The database URL \(shown) \(problem). Write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE.")
            }
            guard Self.isPostgresURL(url) else { throw refuse("is not a PostgreSQL URL: it must start with postgres:// or postgresql://") }
            guard let components = URLComponents(string: url) else {
                throw refuse("cannot be read; percent-encode any @, :, / or ? in the user name or password")
            }
            guard let username = components.user, !username.isEmpty else { throw refuse("names no user") }
            let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
            guard !path.contains("/") else { throw refuse("has a path of more than one part; only the database name follows the host") }
            self.init(
                host: components.host ?? "", port: components.port ?? 5432, username: username, password: components.password,
                database: path.isEmpty ? username : path
            )
            if let port = components.port, !(1...65_535).contains(port) { throw refuse("has the port \(port), which is not between 1 and 65535") }
            for item in components.queryItems ?? [] {
                let value = item.value ?? ""
                switch item.name {
                case "sslmode":
                    guard let mode = TLSMode(rawValue: value) else {
                        throw refuse("has sslmode=\(value); use one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    tls = mode
                case "options":
                    try readOptions(value, refuse: refuse)
                case "application_name":
                    applicationName = value
                case "connect_timeout":
                    guard let seconds = Int(value), seconds > 0 else { throw refuse("has connect_timeout=\(value); give a whole number of seconds") }
                    connectTimeout = .seconds(seconds)
                case "host":
                    host = value
                default:
                    throw refuse(
                        "has the parameter \"\(item.name)\", which OpenStoreKit does not read; it reads sslmode, options, application_name, connect_timeout and host"
                    )
                }
            }
            if host.isEmpty { host = "localhost" }
        }

        /// Reads libpq's `options`: server settings as `-c NAME=VALUE` (or `-cNAME=VALUE`, `--NAME=VALUE`), separated by spaces.
        private mutating func readOptions(_ options: String, refuse: (String) -> StoreError) throws(StoreError) {
            var words = options.split(separator: " ").map(String.init)[...]
            while let word = words.popFirst() {
                let setting: String
                if word == "-c", let next = words.popFirst() {
                    setting = next
                } else if word.hasPrefix("-c") {
                    setting = String(word.dropFirst(2))
                } else if word.hasPrefix("--") {
                    setting = String(word.dropFirst(2))
                } else {
                    throw refuse("has options=\(options); give server settings as -c NAME=VALUE")
                }
                guard let equals = setting.firstIndex(of: "="), equals != setting.startIndex else {
                    throw refuse("has the option \(setting); give server settings as -c NAME=VALUE")
                }
                let name = setting[..<equals].replacingOccurrences(of: "-", with: "_")
                let value = String(setting[setting.index(after: equals)...])
                if name == "search_path" {
                    guard !value.isEmpty, !value.contains(",") else {
                        throw refuse("has search_path=\(value); name the one schema that holds the store's tables")
                    }
                    schema = value
                } else {
                    serverSettings[name] = value
                }
            }
        }

        /// Whether a string is a PostgreSQL URL: it starts with `postgres://` or `postgresql://`.
        ///
        /// - Parameter string: A database URL, such as the value of `OPENSTOREKIT_DATABASE_URL`.
        public static func isPostgresURL(_ string: String) -> Bool {
            let lowered = string.lowercased()
            return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
        }

        /// The database, for messages and logs: `postgres://USER@HOST:PORT/DATABASE`, with the schema, never the password.
        public var description: String {
            let place = host.hasPrefix("/") ? "\(host) (socket)" : (host.contains(":") ? "[\(host)]" : host)
            let schemaPart = schema.map { " (schema \($0))" } ?? ""
            return "postgres://\(username)@\(place):\(port)/\(database)\(schemaPart)"
        }

        /// The URL with its password replaced by `***`, for messages about a URL that could not be read.
        static func redacting(_ url: String) -> String {
            guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].lastIndex(of: "@"),
                  let colon = url[scheme.upperBound..<at].firstIndex(of: ":")
            else { return url }
            return url[..<url.index(after: colon)] + "***" + url[at...]
        }
    }
}
