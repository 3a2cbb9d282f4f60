// Runs before `npm install` (preinstall) and `npm start`, on whatever Node the user has: so it is
// plain CommonJS with nothing newer than ES5 syntax in it, and it needs no dependency. The engine
// runs its TypeScript sources directly, which Node supports from 22.18 (type stripping on by
// default); 22.19 is the oldest release this project is tested on. On an older Node, `npm install`
// used to succeed among warnings and `npm start` died with ERR_UNKNOWN_FILE_EXTENSION ".ts".
'use strict';
var REQUIRED = [22, 19, 0];
var found = process.versions.node;
var parts = found.split('.').map(Number);
var ok = false;
for (var i = 0; i < 3; i++) {
  if (parts[i] !== REQUIRED[i]) {
    ok = parts[i] > REQUIRED[i];
    break;
  }
  if (i === 2) ok = true;
}
if (!ok) {
  process.stderr.write(
    'Engine needs Node.js ' + REQUIRED.join('.') + ' or newer; this is Node.js ' + found + ' (' + process.execPath + ').\n' +
      'Install a current Node (https://nodejs.org/en/download, or `nvm install 24 && nvm use 24`,\n' +
      'or `fnm install 24 && fnm use 24`), then run the command again.\n',
  );
  process.exit(1);
}
