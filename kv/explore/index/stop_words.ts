/**
 * The words explore leaves out of its word index: a search for one of them is answered by another
 * index and the documents' words (`indexCovers`), so leaving a word out changes no answer.
 */

// Normalized (lower case, no accents) as `words` leaves them; three letters or more, since
// shorter words are never indexed. Function words of English, French, German, Spanish and
// Italian.
const FUNCTION_WORDS = `
  about after again all also and any are because been before being both but can could did does
  doing down during each few for from had has have having her here hers herself him himself his
  how into its itself just more most myself nor not now off once only other our ours out over own
  same she should some such than that the their theirs them then there these they this those
  through too under until very was were what when where which while who whom why will with would
  you your yours yourself
  aux avec ces cet cette dans des elle elles est ils les leur leurs lui mais mes moi mon meme nos
  notre nous par pas pour qui que quoi sans ses son sont sur tes toi ton tous tout toute toutes
  une vos votre vous etait etre ete
  aber als auch auf aus bei bin bis das dass dem den der des die doch ein eine einem einen einer
  eines auf fur hat ich ihr ihre ist mit nach nicht noch oder sein sich sie sind uber und uns
  von vor war wie wir zum zur
  con como del desde el las los mas nos para pero por que sin sobre son sus una uno unos unas
  alla alle anche che come con dei della delle dello gli nel nella nelle per piu sono sul sulla
  tra una uno
`;

// The English stop list of Salton's SMART system (the public-domain english.stop, which MySQL's
// full-text search also ships), without its words of under three letters or with an apostrophe
// (the tokenizer splits those), and without the few that name what a task may be about (course,
// name, novel, value, changes, example): a stop word costs a search for it alone a scan of
// documents, cheap for the frequent words such a list holds and slow for a rare one.
const SMART_WORDS = `
  able about above according accordingly across actually after afterwards again against all allow
  allows almost alone along already also although always among amongst and another any anybody
  anyhow anyone anything anyway anyways anywhere apart appear appreciate appropriate are around
  aside ask asking associated available away awfully became because become becomes becoming been
  before beforehand behind being believe below beside besides best better between beyond both
  brief but came can cannot cant cause causes certain certainly clearly com come comes concerning
  consequently consider considering contain containing contains corresponding could currently
  definitely described despite did different does doing done down downwards during each edu eight
  either else elsewhere enough entirely especially etc even ever every everybody everyone
  everything everywhere exactly except far few fifth first five followed following follows for
  former formerly forth four from further furthermore get gets getting given gives goes going
  gone got gotten greetings had happens hardly has have having hello help hence her here
  hereafter hereby herein hereupon hers herself him himself his hither hopefully how howbeit
  however ignored immediate inasmuch inc indeed indicate indicated indicates inner insofar
  instead into inward its itself just keep keeps kept know known knows last lately later latter
  latterly least less lest let like liked likely little look looking looks ltd mainly many may
  maybe mean meanwhile merely might more moreover most mostly much must myself namely near nearly
  necessary need needs neither never nevertheless new next nine nobody non none noone nor
  normally not nothing now nowhere obviously off often okay old once one ones only onto other
  others otherwise ought our ours ourselves out outside over overall own particular particularly
  per perhaps placed please plus possible presumably probably provides que quite rather really
  reasonably regarding regardless regards relatively respectively right said same saw say saying
  says second secondly see seeing seem seemed seeming seems seen self selves sensible sent
  serious seriously seven several shall she should since six some somebody somehow someone
  something sometime sometimes somewhat somewhere soon sorry specified specify specifying still
  sub such sup sure take taken tell tends than thank thanks thanx that thats the their theirs
  them themselves then thence there thereafter thereby therefore therein theres thereupon these
  they think third this thorough thoroughly those though three through throughout thru thus
  together too took toward towards tried tries truly try trying twice two under unfortunately
  unless unlikely until unto upon use used useful uses using usually uucp various very via viz
  want wants was way welcome well went were what whatever when whence whenever where whereafter
  whereas whereby wherein whereupon wherever whether which while whither who whoever whole whom
  whose why will willing wish with within without wonder would yes yet you your yours yourself
  yourselves zero
`;

// Numbers are not indexed in digits; nor spelled out, one to ten, in the five languages ("due"
// is also an English word).
const NUMBER_WORDS = `
  ten deux trois quatre cinq six sept huit neuf dix eins zwei drei vier funf sechs sieben acht
  neun zehn dos tres cuatro cinco seis siete ocho nueve diez tre quattro cinque sei sette otto
  nove dieci
`;

export const STOP_WORDS: ReadonlySet<string> = new Set(
  [FUNCTION_WORDS, SMART_WORDS, NUMBER_WORDS].join(" ").trim().split(/\s+/),
);
