/** The observation keys the parsers store and the resolvers read, where a feed fixes them. */

/** The farside key of the all-funds total. */
export const ETF_ALL = 'ALL';
/** The cities of weather/observations. */
export const WEATHER_CITIES = ['london', 'new_york', 'tokyo'];
/** absurd_earth/weather: the coldest inhabited place we watch. */
export const COLDEST_PLACE = 'oymyakon';
/** NOAA CO-OPS station of absurd_earth/tides: The Battery, New York. */
export const TIDE_STATION = '8518750';
/** The publication types of medical/literature, each its own esearch count. */
export const PUBMED_TYPES = [
  'review',
  'clinical_trial',
  'randomized_controlled_trial',
  'meta_analysis',
  'case_reports',
];
/** A perpetual's 1m trade bar (key: its symbol, BASE-QUOTE), read by crypto/futures last_price and taker_flow. */
export const PERP_BAR_METRIC = 'perp_bar';
