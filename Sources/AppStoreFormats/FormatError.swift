/// An error thrown by AppStoreFormats for malformed input, I/O problems and misuse.
///
/// Verifications never throw this: a signature, receipt or chain that fails to verify is reported as a
/// value (`Result`). `FormatError` is for input that cannot be read at all (a truncated receipt, a PEM file
/// that is not PEM, a directory that cannot be written). Two errors are equal when their codes are equal;
/// the message says what happened and what to do.
public struct FormatError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Code: Hashable, Sendable {
        case malformedData
        case malformedKey
        case malformedCertificate
        case fileSystem
        case unsupported
    }

    let code: Code

    /// What went wrong and what to do about it.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Input bytes (DER, BER, base64, JSON or a compact JWS) that could not be parsed.
    public static let malformedData = FormatError(.malformedData, "The data could not be parsed.")
    /// A private or public key that could not be read.
    public static let malformedKey = FormatError(.malformedKey, "The key could not be read.")
    /// A certificate that could not be read.
    public static let malformedCertificate = FormatError(.malformedCertificate, "The certificate could not be read.")
    /// A file or directory that could not be read or written.
    public static let fileSystem = FormatError(.fileSystem, "A file could not be read or written.")
    /// A well-formed input that uses a feature this module does not implement.
    public static let unsupported = FormatError(.unsupported, "The input uses an unsupported feature.")

    static func malformedData(_ message: String) -> FormatError { FormatError(.malformedData, message) }
    static func malformedKey(_ message: String) -> FormatError { FormatError(.malformedKey, message) }
    static func malformedCertificate(_ message: String) -> FormatError { FormatError(.malformedCertificate, message) }
    static func fileSystem(_ message: String) -> FormatError { FormatError(.fileSystem, message) }
    static func unsupported(_ message: String) -> FormatError { FormatError(.unsupported, message) }

    public static func == (lhs: FormatError, rhs: FormatError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { message }
}
