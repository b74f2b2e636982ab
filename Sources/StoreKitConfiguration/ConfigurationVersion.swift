/// The `version` object of a `.storekit` file (`{ "major" : 4, "minor" : 0 }`): the Xcode generation that created it.
///
/// The version does not bound which keys a file holds (Xcode keeps a file's version and still writes newer
/// keys into it), so the loader goes by the keys present; the version is kept and written back as is.
public struct ConfigurationVersion: Sendable, Equatable, Comparable, CustomStringConvertible {
    /// The major version: 1 (Xcode 12) through 6 (seen as 6.3).
    public var major: Int
    /// The minor version.
    public var minor: Int
    /// Members of the `version` object this library does not model, kept for the round trip.
    public var unknownKeys: [String: ConfigurationJSON]
    var layout = KeyLayout()

    /// Creates a version.
    public init(major: Int, minor: Int, unknownKeys: [String: ConfigurationJSON] = [:]) {
        self.major = major
        self.minor = minor
        self.unknownKeys = unknownKeys
    }

    /// Orders by major, then minor.
    public static func < (lhs: ConfigurationVersion, rhs: ConfigurationVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    /// `major.minor`, e.g. `4.0`.
    public var description: String { "\(major).\(minor)" }
}
