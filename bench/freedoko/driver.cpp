/**********************************************************************
 *
 *   fd-driver: a line driver around FreeDoko's AI for doko's
 *   bench/freedoko_match.py.
 *
 *   Copyright (C) 2026  the doko authors
 *
 *   This program is free software; you can redistribute it and/or
 *   modify it under the terms of the GNU General Public License as
 *   published by the Free Software Foundation; either version 2 of
 *   the License, or (at your option) any later version.
 *   (SPDX-License-Identifier: GPL-2.0-or-later)
 *
 *   It is licensed so because it links FreeDoko (Copyright (C)
 *   2001-2013 Diether Knof and Borg Enders, GPL version 2 or later).
 *   This file is not part of doko's package nor under doko's licence;
 *   see bench/freedoko/README.md.
 *
 *   This program is distributed in the hope that it will be useful,
 *   but WITHOUT ANY WARRANTY; without even the implied warranty of
 *   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
 *   GNU General Public License for more details.
 *
 ********************************************************************/

// Usage: fd-driver LEVEL REMOTE
//   LEVEL   profi | profi_aggressive (FreeDoko's AI level)
//   REMOTE  the players whose decisions are asked for on stdin, as digits ("13")
//
// The protocol is the table of bench/README.md ("Against an outside AI:
// FreeDoko"). Protocol lines go to the standard output; FreeDoko's own output
// to its standard output is dropped, its diagnostics stay on stderr.
// The end of the standard input ends the driver.

#include "constants.h"

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "basistypes.h"
#include "card/hand.h"
#include "card/hand_card.h"
#include "card/trick.h"
#include "game/game.h"
#include "game/reservation.h"
#include "misc/setting.h"
#include "misc/translator.h"
#include "party/party.h"
#include "party/rule.h"
#include "player/ai/ai.h"
#include "player/aiconfig.h"
#include "ui/ui.h"
#include "ui/ui.wrap.h"

// The globals FreeDoko's own main file (freedoko.cpp, not linked) defines.
DK::Utils::Version const* version = NULL;
vector<DK::Utils::Version const*> all_versions;
UI* ui = NULL;
#include "text/gpl.string"
vector<string> Translator::directories;
vector<string> Translator::names;
Translator translator;
Setting setting;
Party party;

namespace {

// The protocol's output: the original standard output (FreeDoko's 'cout' is
// sent to /dev/null).
FILE* protocol = NULL;

void say(string const& line)
{
  std::fputs(line.c_str(), protocol);
  std::fputc('\n', protocol);
  std::fflush(protocol);
}

// The next line of the standard input; its end ends the driver.
string hear()
{
  string line;
  if (!std::getline(std::cin, line)) {
    std::fflush(protocol);
    std::_Exit(EXIT_SUCCESS);
  }
  while (!line.empty() && (line[line.size() - 1] == '\r' || line[line.size() - 1] == ' '))
    line.erase(line.size() - 1);
  return line;
}

string number(unsigned const n)
{
  std::ostringstream ostr;
  ostr << n;
  return ostr.str();
}

// A card in doko's codes ("10H", "QC", "9D").
string code(Card const& card)
{
  string value;
  switch (card.value()) {
  case Card::ACE: value = "A"; break;
  case Card::TEN: value = "10"; break;
  case Card::KING: value = "K"; break;
  case Card::QUEEN: value = "Q"; break;
  case Card::JACK: value = "J"; break;
  case Card::NINE: value = "9"; break;
  default: value = "?"; break;
  }
  switch (card.color()) {
  case Card::CLUB: return value + "C";
  case Card::SPADE: return value + "S";
  case Card::HEART: return value + "H";
  case Card::DIAMOND: return value + "D";
  default: return value + "?";
  }
}

// The card of a code; an empty card for anything else.
Card card_of(string const& code)
{
  if (code.size() < 2)
    return Card();
  string const value = code.substr(0, code.size() - 1);
  char const suit = code[code.size() - 1];
  Card::Color color;
  switch (suit) {
  case 'C': color = Card::CLUB; break;
  case 'S': color = Card::SPADE; break;
  case 'H': color = Card::HEART; break;
  case 'D': color = Card::DIAMOND; break;
  default: return Card();
  }
  Card::Value v;
  if (value == "A") v = Card::ACE;
  else if (value == "10") v = Card::TEN;
  else if (value == "K") v = Card::KING;
  else if (value == "Q") v = Card::QUEEN;
  else if (value == "J") v = Card::JACK;
  else if (value == "9") v = Card::NINE;
  else return Card();
  return Card(color, v);
}

// doko's name of a game type ("" for one doko does not play).
string game_type_name(GameType const type)
{
  switch (type) {
  case GAMETYPE::NORMAL: return "normal";
  case GAMETYPE::MARRIAGE: return "marriage";
  case GAMETYPE::MARRIAGE_SILENT: return "silent_solo";
  case GAMETYPE::SOLO_CLUB: return "clubs_solo";
  case GAMETYPE::SOLO_SPADE: return "spades_solo";
  case GAMETYPE::SOLO_HEART: return "hearts_solo";
  case GAMETYPE::SOLO_DIAMOND: return "diamonds_solo";
  case GAMETYPE::SOLO_QUEEN: return "queen_solo";
  case GAMETYPE::SOLO_JACK: return "jack_solo";
  case GAMETYPE::SOLO_MEATLESS: return "fleischlos";
  case GAMETYPE::POVERTY: return "poverty";
  default: return "";
  }
}

// The reserved game type of doko's name; false for an unknown name.
bool game_type_of(string const& name, GameType& type)
{
  GameType const types[] = {GAMETYPE::NORMAL, GAMETYPE::MARRIAGE,
                            GAMETYPE::SOLO_CLUB, GAMETYPE::SOLO_SPADE,
                            GAMETYPE::SOLO_HEART, GAMETYPE::SOLO_DIAMOND,
                            GAMETYPE::SOLO_QUEEN, GAMETYPE::SOLO_JACK,
                            GAMETYPE::SOLO_MEATLESS};
  for (unsigned i = 0; i < sizeof(types) / sizeof(types[0]); ++i)
    if (game_type_name(types[i]) == name) {
      type = types[i];
      return true;
    }
  return false;
}

// doko's word of an announcement by 'player'.
string word(Announcement const announcement, Player const& player)
{
  switch (announcement) {
  case ANNOUNCEMENT::NO120:
  case ANNOUNCEMENT::REPLY:
  case ANNOUNCEMENT::NO120_REPLY:
    return (player.game().team(player) == TEAM::RE) ? "re" : "kontra";
  case ANNOUNCEMENT::NO90:
  case ANNOUNCEMENT::NO90_REPLY:
    return "no90";
  case ANNOUNCEMENT::NO60:
  case ANNOUNCEMENT::NO60_REPLY:
    return "no60";
  case ANNOUNCEMENT::NO30:
  case ANNOUNCEMENT::NO30_REPLY:
    return "no30";
  case ANNOUNCEMENT::NO0:
  case ANNOUNCEMENT::NO0_REPLY:
    return "schwarz";
  default:
    return "none";
  }
}

// The announcement of doko's word; NOANNOUNCEMENT for anything else.
Announcement announcement_of(string const& word)
{
  if (word == "re" || word == "kontra") return ANNOUNCEMENT::NO120;
  if (word == "no90") return ANNOUNCEMENT::NO90;
  if (word == "no60") return ANNOUNCEMENT::NO60;
  if (word == "no30") return ANNOUNCEMENT::NO30;
  if (word == "schwarz") return ANNOUNCEMENT::NO0;
  return ANNOUNCEMENT::NOANNOUNCEMENT;
}

// Whether 'cards' holds 12 cards of the comma-separated codes in 'text'.
bool parse_hand(string const& text, vector<Card>& cards)
{
  std::istringstream istr(text);
  string item;
  while (std::getline(istr, item, ',')) {
    Card const card = card_of(item);
    if (card.is_empty())
      return false;
    cards.push_back(card);
  }
  return cards.size() == 12;
}

} // namespace

/**
 ** A player whose decisions are asked for over the protocol. It is an 'Ai' so
 ** that FreeDoko's bookkeeping of the game (cards and team information) goes
 ** on as for any player, and the answer "ai" hands a decision to FreeDoko's AI.
 **/
class Remote : public Ai {
  public:
    explicit Remote(unsigned const no) : Ai(no) { }
    Remote(Remote const& remote) : Ai(remote) { }

    // FreeDoko's virtual games (the AI's simulations) get a plain AI here
    virtual Ai* clone() const
    { return this->Ai::clone(); }

    virtual Reservation const& reservation_get(bool const is_duty = false);
    virtual HandCard card_get();
    virtual Announcement announcement_request() const;

  private:
    Remote& operator=(Remote const&);
}; // class Remote : public Ai

Reservation const&
Remote::reservation_get(bool const is_duty)
{
  say("reservation? " + number(this->no()));
  string const answer = hear();
  if (answer == "ai")
    return this->Ai::reservation_get(is_duty);
  GameType type = GAMETYPE::NORMAL;
  bool valid = game_type_of(answer, type);
  if (valid && type == GAMETYPE::MARRIAGE)
    valid = (this->hand().numberofclubqueens() == 2);
  else if (valid && type != GAMETYPE::NORMAL)
    valid = this->game().rule()(type);
  if (!valid) {
    say("rejected");
    return this->Ai::reservation_get(is_duty);
  }
  Reservation reservation;
  reservation.game_type = type;
  reservation.marriage_selector = MARRIAGE_SELECTOR::FIRST_FOREIGN;
  reservation.offer_duty_solo = false;
  reservation.swines = false;
  reservation.hyperswines = false;
  this->reservation() = reservation;
  return this->reservation();
} // Reservation const& Remote::reservation_get(bool is_duty)

HandCard
Remote::card_get()
{
  while (true) {
    say("play? " + number(this->no()));
    string const answer = hear();
    if (answer == "ai")
      return this->Ai::card_get();
    if (answer.compare(0, 9, "announce ") == 0) {
      Announcement const announcement = announcement_of(answer.substr(9));
      if (   announcement == ANNOUNCEMENT::NOANNOUNCEMENT
          || !this->game().announcement_valid(announcement, *this)) {
        say("rejected");
        return this->Ai::card_get();
      }
      this->game().make_announcement(announcement, *this);
      continue;
    }
    Card const card = card_of(answer);
    if (   card.is_empty()
        || !this->hand().contains(card)
        || !HandCard(this->hand(), card).isvalid(this->game().trick_current())) {
      say("rejected");
      return this->Ai::card_get();
    }
    return HandCard(this->hand(), card);
  } // while (true)
} // HandCard Remote::card_get()

Announcement
Remote::announcement_request() const
{
  say("announce? " + number(this->no()));
  string const answer = hear();
  if (answer == "ai")
    return this->Ai::announcement_request();
  if (answer == "none")
    return ANNOUNCEMENT::NOANNOUNCEMENT;
  Announcement const announcement = announcement_of(answer);
  if (   announcement == ANNOUNCEMENT::NOANNOUNCEMENT
      || !this->game().announcement_valid(announcement, *this)) {
    say("rejected");
    return ANNOUNCEMENT::NOANNOUNCEMENT;
  }
  return announcement;
} // Announcement Remote::announcement_request() const

/**
 ** The user interface: it deals the hands read from the protocol and reports
 ** every reservation, game type, announcement and card.
 **/
class LineUI : public UI {
  public:
    LineUI() : UI(UI_TYPE::DUMMY) { }

    void game_cards_distributed();
    void reservation_got(Reservation const& reservation, Player const& player);
    void game_start();
    void card_played(HandCard const& card);
    void announcement_made(Announcement const& announcement, Player const& player);
    void marriage(Player const& bridegroom, Player const& bride);
    void game_finish();

    // asked of human players only: there are none
    Reservation reservation_get(Player const& player) { return Reservation(); }
    HandCard card_get(Player const& player) { return HandCard(); }
    HandCards poverty_shift(Player& player) { return HandCards(); }
    bool poverty_take_accept(Player& player, unsigned const cardno) { return false; }
    HandCards poverty_cards_change(Player& player, HandCards const& cards)
    { return cards; }
    Player const* genscher_partner() { return NULL; }

    void information(Translator::Translation const& message,
                     INFORMATION::Type const type,
                     bool const force_show = false) { }
    void error(string const& message)
    {
      std::cerr << "FreeDoko error: " << message << std::endl;
      std::_Exit(EXIT_FAILURE);
    }

  private:
    LineUI(LineUI const&);
    LineUI& operator=(LineUI const&);
}; // class LineUI : public UI

void
LineUI::game_cards_distributed()
{
  Game& game = this->game();
  if (game.isvirtual())
    return;
  say("deal " + number(game.startplayer().no()));
  string const answer = hear();
  std::istringstream istr(answer);
  string verb;
  istr >> verb;
  vector<vector<Card> > hands(game.playerno());
  bool valid = (verb == "hands");
  for (unsigned p = 0; valid && p < game.playerno(); ++p) {
    string text;
    istr >> text;
    valid = parse_hand(text, hands[p]);
  }
  if (!valid) {
    std::cerr << "fd-driver: expected 'hands H0 H1 H2 H3', got '" << answer << "'" << std::endl;
    std::_Exit(EXIT_FAILURE);
  }
  // the players forget the hands FreeDoko dealt (as at a new game) and get these
  for (unsigned p = 0; p < game.playerno(); ++p)
    game.player(p).new_game(game);
  for (unsigned p = 0; p < game.playerno(); ++p)
    game.player(p).set_hand(Hand(hands[p]));
} // void LineUI::game_cards_distributed()

void
LineUI::reservation_got(Reservation const& reservation, Player const& player)
{
  if (player.game().isvirtual())
    return;
  string name = game_type_name(reservation.game_type);
  if (name.empty())
    name = ::name(reservation.game_type);
  for (string::iterator c = name.begin(); c != name.end(); ++c)
    if (*c == ' ')
      *c = '_';
  say("reserved " + number(player.no()) + " " + name);
} // void LineUI::reservation_got(Reservation reservation, Player player)

void
LineUI::game_start()
{
  Game& game = this->game();
  if (game.isvirtual())
    return;
  string name = game_type_name(game.type());
  if (name.empty())
    name = ::name(game.type());
  for (string::iterator c = name.begin(); c != name.end(); ++c)
    if (*c == ' ')
      *c = '_';
  string soloist = "-1";
  if (   GAMETYPE::is_solo(game.type())
      || game.type() == GAMETYPE::MARRIAGE
      || game.type() == GAMETYPE::MARRIAGE_SILENT)
    soloist = number(game.soloplayer().no());
  say("game " + name + " " + soloist);
} // void LineUI::game_start()

void
LineUI::card_played(HandCard const& card)
{
  if (card.player().game().isvirtual())
    return;
  say("played " + number(card.player().no()) + " " + code(card));
} // void LineUI::card_played(HandCard card)

void
LineUI::announcement_made(Announcement const& announcement, Player const& player)
{
  if (player.game().isvirtual())
    return;
  say("announced " + number(player.no()) + " " + word(announcement, player));
} // void LineUI::announcement_made(Announcement announcement, Player player)

void
LineUI::marriage(Player const& bridegroom, Player const& bride)
{
  if (bridegroom.game().isvirtual())
    return;
  say("marriage " + number(bridegroom.no()) + " " + number(bride.no()));
} // void LineUI::marriage(Player bridegroom, Player bride)

void
LineUI::game_finish()
{
  say("end");
} // void LineUI::game_finish()

namespace {

// FreeDoko's rules set to doko's (RULES.md).
void set_rules(Rule& rule)
{
  rule.set(Rule::MUTATE, false);
  rule.set(Rule::WITH_NINES, true);                          // R2.1: 48 cards
  rule.set(Rule::BOCK, false);
  rule.set(Rule::THROW_WITH_NINES, false);
  rule.set(Rule::THROW_WITH_KINGS, false);
  rule.set(Rule::THROW_WITH_NINES_AND_KINGS, false);
  rule.set(Rule::THROW_WITH_RICHNESS, false);
  rule.set(Rule::THROW_WITH_ONE_TRUMP, false);
  rule.set(Rule::THROW_WHEN_FOX_HIGHEST_TRUMP, false);
  rule.set(Rule::POVERTY, false);
  rule.set(Rule::GENSCHER, false);
  rule.set(Rule::KNOCKING, false);
  // R4.6: the first foreign trick among the first 3 decides a marriage
  rule.set(Rule::MARRIAGE_DETERMINATION, 3u);
  rule.set(Rule::MARRIAGE_FIRST_FOREIGN, true);
  rule.set(Rule::MARRIAGE_FIRST_COLOR, false);
  rule.set(Rule::MARRIAGE_FIRST_SINGLE_COLOR, false);
  rule.set(Rule::MARRIAGE_FIRST_TRUMP, false);
  rule.set(Rule::MARRIAGE_FIRST_ONE_DECIDES, false);
  rule.set(Rule::MARRIAGE_BEFORE_POVERTY, false);
  // R5: suit, queen and jack solos and Fleischloser
  rule.set(Rule::SOLO, true);
  rule.set(Rule::SOLO_COLOR, true);
  rule.set(Rule::SOLO_QUEEN, true);
  rule.set(Rule::SOLO_JACK, true);
  rule.set(Rule::SOLO_MEATLESS, true);
  rule.set(Rule::SOLO_KING, false);
  rule.set(Rule::SOLO_QUEEN_JACK, false);
  rule.set(Rule::SOLO_KING_JACK, false);
  rule.set(Rule::SOLO_KING_QUEEN, false);
  rule.set(Rule::SOLO_KOEHLER, false);
  rule.set(Rule::THROWING_BEFORE_SOLO, false);
  // R3.4: the first of two 10H wins
  rule.set(Rule::DOLLEN, true);
  rule.set(Rule::DOLLEN_SECOND_OVER_FIRST, false);
  rule.set(Rule::DOLLEN_CONTRARY_IN_LAST_TRICK, false);
  rule.set(Rule::DOLLEN_FIRST_OVER_SECOND_WITH_SWINES, false);
  rule.set(Rule::SWINES, false);
  rule.set(Rule::HYPERSWINES, false);
  // R9: fox, Karlchen and Doppelkopf only
  rule.set(Rule::EXTRAPOINT_CATCH_FOX, true);
  rule.set(Rule::EXTRAPOINT_CATCH_FOX_LAST_TRICK, false);
  rule.set(Rule::EXTRAPOINT_FOX_LAST_TRICK, false);
  rule.set(Rule::EXTRAPOINT_DOUBLE_FOX_LAST_TRICK, false);
  rule.set(Rule::EXTRAPOINT_CHARLIE, true);
  rule.set(Rule::EXTRAPOINT_CATCH_CHARLIE, false);
  rule.set(Rule::EXTRAPOINT_DOUBLE_CHARLIE, false);
  rule.set(Rule::EXTRAPOINT_CATCH_DOUBLE_CHARLIE, false);
  rule.set(Rule::EXTRAPOINT_CATCH_CHARLIE_ONLY_WITH_DIAMOND_QUEEN, false);
  rule.set(Rule::EXTRAPOINT_DOLLE_JABS_DOLLE, false);
  rule.set(Rule::EXTRAPOINT_HEART_TRICK, false);
  // R6: words by the cards in hand, 11/10/9/8/7, replies on
  rule.set(Rule::ANNOUNCEMENT_TILL_FULL_TRICK, false);
  rule.set(Rule::ANNOUNCEMENT_FIRST_TRICK_THIRTY_POINTS, false);
  rule.set(Rule::ANNOUNCEMENT_NO_120, 11u);
  rule.set(Rule::ANNOUNCEMENT_NO_90, 10u);
  rule.set(Rule::ANNOUNCEMENT_NO_60, 9u);
  rule.set(Rule::ANNOUNCEMENT_NO_30, 8u);
  rule.set(Rule::ANNOUNCEMENT_NO_0, 7u);
  rule.set(Rule::ANNOUNCEMENT_REPLY, true);
  rule.set(Rule::ANNOUNCEMENT_STRICT_LIMIT, false);
  // R8: game values added, never doubled
  rule.set(Rule::ANNOUNCEMENT_RE_DOUBLES, false);
  rule.set(Rule::ANNOUNCEMENT_CONTRA_DOUBLES_AGAINST_RE, false);
  rule.set(Rule::SOLO_ALWAYS_COUNTS_TRIPLE, false);
  // an endless party, no duty solos, the dealer's left always leads (R3.5)
  rule.set(Rule::NUMBER_OF_ROUNDS_LIMITED, false);
  rule.set(Rule::POINTS_LIMITED, false);
  rule.set(Rule::NUMBER_OF_DUTY_SOLI, 0u);
  rule.set(Rule::NUMBER_OF_DUTY_COLOR_SOLI, 0u);
  rule.set(Rule::NUMBER_OF_DUTY_PICTURE_SOLI, 0u);
  rule.set(Rule::OFFER_DUTY_SOLO, false);
  rule.set(Rule::LUSTSOLO_PLAYER_LEADS, false);
}

} // namespace

int
main(int argc, char* argv[])
{
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " profi|profi_aggressive REMOTE (e.g. 13)\n";
    return EXIT_FAILURE;
  }
  string const level = argv[1];
  Aiconfig::Difficulty difficulty;
  if (level == "profi")
    difficulty = Aiconfig::PROFI;
  else if (level == "profi_aggressive")
    difficulty = Aiconfig::PROFI_AGGRESSIVE;
  else {
    std::cerr << "unknown level '" << level << "'\n";
    return EXIT_FAILURE;
  }
  string const remote = argv[2];

  // the protocol keeps the standard output; FreeDoko's 'cout' goes to /dev/null
  protocol = fdopen(dup(STDOUT_FILENO), "w");
  int const null = open("/dev/null", O_WRONLY);
  if (protocol == NULL || null < 0 || dup2(null, STDOUT_FILENO) < 0) {
    std::cerr << "fd-driver: cannot set up the standard output\n";
    return EXIT_FAILURE;
  }

  ::ui = new UI_Wrap;
  ::game_status = GAMESTATUS::PROGRAMSTART;
  ::all_versions.push_back(new DK::Utils::Version(0, 7, 13, DK::Utils::Date(2013, 12, 7), false));
  ::version = ::all_versions.back();

#ifdef FD_DATA_DIRECTORY
  ::setting.add_data_directory(FD_DATA_DIRECTORY);
#endif
  ::setting.set(Setting::AUTOMATIC_SAVINGS, false);
  ::setting.set(Setting::SAVE_PARTY_CHANGES, false);
  FAST_PLAY |= (FAST_NS::PAUSE | FAST_NS::GAMEPLAY_INFORMATION
                | FAST_NS::GAME_FINISHED | FAST_NS::PARTY_FINISHED
                | FAST_NS::HIDE_BUG_REPORT_WINDOW);

  delete static_cast<UI_Wrap*>(::ui)->ui;
  static_cast<UI_Wrap*>(::ui)->ui = new LineUI;

  set_rules(::party.rule());
  ::party.set_seed(0);
  ::party.set_startplayer(0);

  ::party.open();
  ::ui->party_open(::party);
  ::game_status = GAMESTATUS::PARTY_NEW;
  ::party.init();
  for (unsigned p = 0; p < ::party.playerno(); ++p) {
    Ai* const player = ((remote.find(static_cast<char>('0' + p)) != string::npos)
                        ? new Remote(p)
                        : new Ai(p));
    player->set_to_difficulty(difficulty);
    ::party.set_player(player, p);
  }

  ::game_status = GAMESTATUS::PARTY_PLAY;
  ::party.play();
  std::fflush(protocol);
  std::_Exit(EXIT_SUCCESS);
} // int main(int argc, char* argv[])
