// Where the built-in retrievers are collected: importing this module registers every one of them
// into the registry (which imports none of them: data flows one way). `createRetriever` loads it.
import './hnsw.js';
import './exact.js';
import './bm25.js';
import './hybrid.js';
import './oracle.js';
import './random.js';
import './oracleNoise.js';
import './lancedb.js';
import './langchainHnswlib.js';
import './langchainLancedb.js';
