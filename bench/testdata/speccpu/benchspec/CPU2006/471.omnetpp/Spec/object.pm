$benchnum  = '471';
$benchname = 'omnetpp';
$benchlang = 'CXX';
@sources=qw(omnetpp.cc);
1;
