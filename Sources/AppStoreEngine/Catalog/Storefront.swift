/// An App Store country: its three-letter code, Apple's numeric storefront identifier and its currency.
public struct Storefront: Sendable, Hashable, Codable {
    /// ISO 3166-1 alpha-3 country code, e.g. `USA`.
    public var countryCode: String
    /// Apple's numeric storefront identifier, e.g. `143441` for the United States.
    public var id: String
    /// ISO 4217 currency code the storefront charges in.
    public var currency: String

    /// Creates a storefront.
    public init(countryCode: String, id: String, currency: String) {
        self.countryCode = countryCode
        self.id = id
        self.currency = currency
    }

    /// The storefront for a country code, if the store knows it.
    public static func named(_ countryCode: String) -> Storefront? {
        known[countryCode.uppercased()]
    }

    /// Every storefront the store knows, by country code.
    public static let known: [String: Storefront] = {
        let table: [(String, String, String)] = [
            ("USA", "143441", "USD"), ("FRA", "143442", "EUR"), ("DEU", "143443", "EUR"), ("GBR", "143444", "GBP"),
            ("AUT", "143445", "EUR"), ("BEL", "143446", "EUR"), ("FIN", "143447", "EUR"), ("GRC", "143448", "EUR"),
            ("IRL", "143449", "EUR"), ("ITA", "143450", "EUR"), ("LUX", "143451", "EUR"), ("NLD", "143452", "EUR"),
            ("PRT", "143453", "EUR"), ("ESP", "143454", "EUR"), ("CAN", "143455", "CAD"), ("SWE", "143456", "SEK"),
            ("NOR", "143457", "NOK"), ("DNK", "143458", "DKK"), ("CHE", "143459", "CHF"), ("AUS", "143460", "AUD"),
            ("NZL", "143461", "NZD"), ("JPN", "143462", "JPY"), ("HKG", "143463", "HKD"), ("SGP", "143464", "SGD"),
            ("CHN", "143465", "CNY"), ("KOR", "143466", "KRW"), ("IND", "143467", "INR"), ("MEX", "143468", "MXN"),
            ("RUS", "143469", "RUB"), ("TWN", "143470", "TWD"), ("VNM", "143471", "VND"), ("ZAF", "143472", "ZAR"),
            ("MYS", "143473", "MYR"), ("PHL", "143474", "PHP"), ("THA", "143475", "THB"), ("IDN", "143476", "IDR"),
            ("POL", "143478", "PLN"), ("SAU", "143479", "SAR"), ("TUR", "143480", "TRY"), ("ARE", "143481", "AED"),
            ("HUN", "143482", "HUF"), ("CHL", "143483", "CLP"), ("ROU", "143487", "RON"), ("CZE", "143489", "CZK"),
            ("ISR", "143491", "ILS"), ("UKR", "143492", "UAH"), ("COL", "143501", "COP"), ("BRA", "143503", "BRL"),
            ("ARG", "143505", "ARS"), ("EGY", "143516", "EGP"),
        ]
        return Dictionary(uniqueKeysWithValues: table.map { ($0.0, Storefront(countryCode: $0.0, id: $0.1, currency: $0.2)) })
    }()
}
